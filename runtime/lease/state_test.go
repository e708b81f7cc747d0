package lease_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/idgen/idgen/runtime/lease"
)

// TestState: State follows the lease through a claim, a loss, failed claims while every
// ID is held, a new claim and Close, as its events tell them.
func TestState(t *testing.T) {
	ctx := context.Background()
	m, ev := newUsedMem(2), newEvents()
	m.steal(1, time.Hour) // only 0 is free
	cfg := testConfig(ev)
	cfg.MaxWorker = 1
	l, err := lease.Acquire(ctx, m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close(ctx)
	st := l.State()
	if st.Worker != 0 || st.Last != lease.Acquired || st.Err != nil || !st.Deadline.After(time.Now()) || st.After.IsZero() {
		t.Fatalf("after Acquire: %+v", st)
	}

	m.steal(0, time.Hour)
	ev.wait(t, lease.Lost, 2*time.Second)
	ev.wait(t, lease.AcquireFailed, 2*time.Second)
	st = l.State()
	if st.Worker != -1 || !st.Deadline.IsZero() || !errors.Is(st.Err, lease.ErrAllTaken) {
		t.Fatalf("with every ID held: %+v, want worker -1, no deadline, ErrAllTaken", st)
	}

	m.steal(1, -time.Hour) // 1 expired an hour ago: claimable
	a := ev.wait(t, lease.Acquired, 5*time.Second)
	st = l.State()
	if st.Worker != 1 || a.Worker != 1 || st.Deadline.IsZero() || st.Err != nil {
		t.Fatalf("after the new claim: %+v (event %+v), want worker 1", st, a)
	}
	if err := l.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if st = l.State(); st.Worker != -1 || !st.Deadline.IsZero() {
		t.Fatalf("after Close: %+v, want worker -1", st)
	}
}
