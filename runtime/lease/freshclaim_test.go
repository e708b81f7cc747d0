package lease_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idgen/idgen/runtime/lease"
	"github.com/idgen/idgen/runtime/snowflake"
	"github.com/idgen/idgen/runtime/snowflake/snowflaketest"
)

// manualMem is a mem whose clock, and the generators', is a manual clock at a whole
// millisecond, with a TTL long enough (10 s of real time) that no renewal runs while a
// test drives the manual clock.
//
// Renewals run on the real clock, and the gate's deadline (a time on the generator's
// clock) moves only with them: a test that moves the manual clock past a fresh claim's
// wait, longer than the TTL, renews by hand (renewed).
func manualMem(t *testing.T) (*mem, *snowflaketest.Clock, lease.Config) {
	t.Helper()
	clock := snowflaketest.NewClock(time.Now().Truncate(time.Millisecond))
	m := newMem()
	m.now = clock.Now
	cfg := lease.Config{Layout: snowflake.Classic(), MaxWorker: 7, TTL: 10 * time.Second}
	cfg.Options.Clock = clock
	return m, clock, cfg
}

// renewed moves l's deadline to the manual clock's now plus d, as the renewals during a
// fresh claim's wait would on a real clock.
func renewed(l *lease.Lease, clock *snowflaketest.Clock, d time.Duration) {
	lease.OpenGateUntil(l, clock.Now().Add(d))
}

// TestFreshClaimWaits: a claim that finds no record issues nothing until the new lease's
// end plus the drift and the skew; a claim that finds one waits only as long as its start
// time says, as before.
func TestFreshClaimWaits(t *testing.T) {
	const ttl, drift, skew = 10 * time.Second, 200 * time.Millisecond, 300 * time.Millisecond
	for _, tc := range []struct {
		name   string
		record func(now time.Time) *memRow // worker 0's record, nil for none
		opts   snowflake.Options
		skew   time.Duration
		fresh  bool
		after  time.Duration // After, from the claim
		wait   time.Duration // total of the sleeps before the first ID
	}{
		{"fresh", nil, snowflake.Options{}, 0, true, ttl, ttl + time.Millisecond},
		{"fresh, drift and skew", nil, snowflake.Options{Rollback: snowflake.RollbackLogical, MaxDrift: drift}, skew, true,
			ttl + drift + skew, ttl + drift + skew + time.Millisecond},
		{"released long ago", func(now time.Time) *memRow {
			return &memRow{holder: "old", expires: now.Add(-time.Second), last: now.Add(-2 * time.Second)}
		}, snowflake.Options{}, skew, false, skew - time.Second, 0},
		{"released now, skew", func(now time.Time) *memRow {
			return &memRow{holder: "old", expires: now}
		}, snowflake.Options{}, skew, false, skew, skew + time.Millisecond},
		{"recorded tick ahead", func(now time.Time) *memRow {
			return &memRow{holder: "old", expires: now.Add(-time.Second), last: now.Add(500 * time.Millisecond)}
		}, snowflake.Options{Rollback: snowflake.RollbackLogical, MaxDrift: drift}, 0, false, 500 * time.Millisecond, 500*time.Millisecond + time.Millisecond - drift},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			m, clock, cfg := manualMem(t)
			clock.AutoAdvance(true)
			claimed := clock.Now()
			if tc.record != nil {
				m.rows[0] = tc.record(claimed)
			}
			ev := newEvents()
			cfg.Options, cfg.Skew, cfg.OnEvent = tc.opts, tc.skew, ev.add
			cfg.Options.Clock = clock
			l, err := lease.Acquire(ctx, m, cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close(ctx)
			a := ev.wait(t, lease.Acquired, time.Second)
			if a.Fresh != tc.fresh || !a.After.Equal(claimed.Add(tc.after)) {
				t.Errorf("acquired: fresh %v, After claim%+v; want fresh %v, After claim%+v", a.Fresh, a.After.Sub(claimed), tc.fresh, tc.after)
			}
			renewed(l, clock, 2*ttl)
			id, err := l.Next()
			if err != nil {
				t.Fatal(err)
			}
			var slept time.Duration
			for _, d := range clock.Slept() {
				slept += d
			}
			if slept != tc.wait {
				t.Errorf("slept %v in all before the first ID (%v), want %v", slept, clock.Slept(), tc.wait)
			}
			layout := cfg.Layout
			if p, _ := layout.Decode(id); p.Tick <= layout.Tick(a.After) {
				t.Errorf("first ID in tick %d, want after tick %d of After", p.Tick, layout.Tick(a.After))
			}
		})
	}
}

// TestFreshClaimBlocks: after a fresh claim Next, NextN and WorkerID park until the
// manual clock passes the wait, and a context that ends first ends the wait.
func TestFreshClaimBlocks(t *testing.T) {
	ctx := context.Background()
	m, clock, cfg := manualMem(t)
	claimed := clock.Now()
	l, err := lease.Acquire(ctx, m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close(ctx)

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := l.NextContext(cctx); !errors.Is(err, context.Canceled) || errors.Is(err, lease.ErrNotHeld) {
		t.Errorf("NextContext with a cancelled context during the wait: %v", err)
	}

	type result struct {
		what string
		err  error
	}
	done := make(chan result, 3)
	go func() { _, err := l.Next(); done <- result{"Next", err} }()
	go func() { _, err := l.NextN(ctx, 3); done <- result{"NextN", err} }()
	go func() { _, err := l.WorkerID(ctx); done <- result{"WorkerID", err} }()
	if err := clock.WaitSleepers(ctx, 3); err != nil {
		t.Fatal(err)
	}
	// A tick short of the lease's end plus one tick: all three still parked.
	renewed(l, clock, 2*cfg.TTL)
	clock.Advance(cfg.TTL)
	if err := clock.WaitSleepers(ctx, 3); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-done:
		t.Fatalf("%s returned (%v) before the wait was over", r.what, r.err)
	default:
	}
	clock.Advance(time.Millisecond)
	for range 3 {
		if r := <-done; r.err != nil {
			t.Errorf("%s after the wait: %v", r.what, r.err)
		}
	}
	id, err := l.Next()
	if err != nil {
		t.Fatal(err)
	}
	if made, _ := cfg.Layout.Time(id); !made.After(claimed.Add(cfg.TTL)) {
		t.Errorf("ID stamped %v, want after the claim plus the TTL %v", made, claimed.Add(cfg.TTL))
	}
}

// TestRenewFindsNoRecord: a renewal that finds no record of the lease (the store lost its
// data) is a loss: the gate closes at once, long before the deadline, and the claim that
// follows is fresh and waits.
func TestRenewFindsNoRecord(t *testing.T) {
	ctx := context.Background()
	m, ev := newUsedMem(8), newEvents()
	var (
		lp              atomic.Pointer[lease.Lease]
		lostAt          time.Time
		lostDeadline    time.Time
		nextErr         error
		nextWhenLostSet bool
	)
	cfg := testConfig(ev)
	cfg.TTL = 1200 * time.Millisecond // renewals every 400 ms, deadlines 1,080 ms after
	cfg.OnEvent = func(e lease.Event) {
		if e.Kind == lease.Lost && !nextWhenLostSet {
			// Called by the Lease after it ended the term and before it claims again.
			lostAt, lostDeadline, nextWhenLostSet = time.Now(), ev.deadline(), true
			_, nextErr = lp.Load().Next()
		}
		ev.add(e)
	}
	l, err := lease.Acquire(ctx, m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	lp.Store(l)
	defer l.Close(ctx)
	if a := ev.wait(t, lease.Acquired, time.Second); a.Fresh {
		t.Fatalf("first claim fresh on a used store: %+v", a)
	}
	if _, err := l.Next(); err != nil {
		t.Fatal(err)
	}
	m.forget()
	lost := ev.wait(t, lease.Lost, 5*time.Second)
	var le *lease.LostError
	if !errors.As(lost.Err, &le) || le.Taken || !le.Expired.IsZero() || le.Worker != 0 {
		t.Errorf("lost event %+v, want a *LostError for worker 0 with no lease recorded", lost)
	}
	var nh *lease.NotHeldError
	if !errors.As(nextErr, &nh) || !errors.As(nextErr, &le) || le.Taken {
		t.Errorf("Next when the loss was reported: %v, want a *NotHeldError wrapping the *LostError", nextErr)
	}
	if !lostAt.Before(lostDeadline) {
		t.Errorf("loss reported %v after the deadline %v: the gate's closing at once was not exercised", lostAt.Sub(lostDeadline), lostDeadline)
	}
	t.Logf("gate closed %v before the deadline", lostDeadline.Sub(lostAt).Round(time.Millisecond))

	a := ev.wait(t, lease.Acquired, 5*time.Second)
	if !a.Fresh || a.Worker != 0 {
		t.Errorf("claim after the loss: %+v, want worker 0, fresh", a)
	}
	id, err := l.Next()
	if err != nil {
		t.Fatal(err)
	}
	if made, _ := cfg.Layout.Time(id); !made.After(a.After) {
		t.Errorf("first ID after the loss stamped %v, want after %v", made, a.After)
	}
}

// TestCloseEndsFreshWait: Close while callers wait after a fresh claim ends their wait with
// a *NotHeldError wrapping ErrClosed.
func TestCloseEndsFreshWait(t *testing.T) {
	ctx := context.Background()
	m, clock, cfg := manualMem(t)
	l, err := lease.Acquire(ctx, m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := l.Next(); done <- err }()
	if err := clock.WaitSleepers(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !errors.Is(err, lease.ErrNotHeld) || !errors.Is(err, lease.ErrClosed) {
		t.Errorf("Next waiting when Close ran: %v, want a *NotHeldError wrapping ErrClosed", err)
	}
}
