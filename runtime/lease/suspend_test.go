package lease_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/idgen/idgen/runtime/lease"
	"github.com/idgen/idgen/runtime/snowflake"
	"github.com/idgen/idgen/runtime/snowflake/snowflaketest"
)

// TestSuspendedMachine: a holder's machine is suspended past its lease's end (its wall
// clock runs on while its monotonic clock, and so its generator's clock, stands still, as
// Go's does on a suspended VM), and the store hands its worker ID to the next holder
// meanwhile. Resumed, the old holder's generator still reads the time of the suspend, so
// it goes on issuing, but only IDs stamped before its deadline, all the way up to the
// last tick before it and never in it, though its drift would allow more; the next
// holder stamps after the deadline plus the drift and Skew. No ID is issued twice.
func TestSuspendedMachine(t *testing.T) {
	ctx := context.Background()
	const (
		// An hour of TTL: the renewals, on the real clock, never run during the test.
		ttl    = time.Hour
		margin = time.Millisecond
		skew   = 5 * time.Millisecond
		drift  = 20 * time.Millisecond
	)
	wall := snowflaketest.NewClock(time.Now().Truncate(time.Millisecond))
	m := newMem()
	m.now = wall.Now // the store's machine is not suspended
	m.rows[0] = &memRow{holder: "gone", expires: wall.Now().Add(-time.Hour)}
	layout := snowflake.Classic()
	config := func(clock snowflake.Clock, ev *events) lease.Config {
		return lease.Config{Layout: layout, MaxWorker: 7, TTL: ttl, Margin: margin, Skew: skew, OnEvent: ev.add,
			Options: snowflake.Options{Clock: clock, Exhaust: snowflake.ExhaustBorrow, MaxDrift: drift}}
	}

	// The first holder's generator reads its wall clock once and then its monotonic
	// clock, as snowflake.SystemClock does.
	mono, ev1 := wall.Monotonic(), newEvents()
	h1, err := lease.Acquire(ctx, m, config(mono, ev1))
	if err != nil {
		t.Fatal(err)
	}
	a1 := ev1.wait(t, lease.Acquired, time.Second)
	deadline := a1.Deadline
	var ids1 []snowflake.ID
	issue1 := func(n int) {
		t.Helper()
		for range n {
			id, err := h1.Next()
			if err != nil {
				t.Fatalf("first holder, before its deadline (its clock at %v): %v", mono.Now().Sub(deadline), err)
			}
			ids1 = append(ids1, id)
		}
	}
	issue1(5000)
	wall.Advance(time.Second)
	issue1(5000)

	// Suspended: the wall clock runs on past the lease's end, the monotonic clock does not.
	suspendedAt := mono.Now()
	wall.Set(a1.Deadline.Add(margin + time.Millisecond))
	if !mono.Now().Equal(suspendedAt) {
		t.Fatalf("the suspended generator's clock moved from %v to %v", suspendedAt, mono.Now())
	}

	// Meanwhile the store hands worker 0 to a machine that was not suspended. It waits
	// on its clock for the start time (wall: the manual clock moves by its sleeps).
	wall.AutoAdvance(true)
	ev2 := newEvents()
	h2, err := lease.Acquire(ctx, m, config(wall, ev2))
	if err != nil {
		t.Fatal(err)
	}
	defer h2.Close(ctx)
	a2 := ev2.wait(t, lease.Acquired, time.Second)
	if a2.Worker != a1.Worker {
		t.Fatalf("next holder took worker %d, want the suspended holder's %d", a2.Worker, a1.Worker)
	}
	if want := deadline.Add(margin + drift + skew); a2.After.Before(want) {
		t.Errorf("next holder's start time %v, before the deadline plus margin, drift and skew %v", a2.After, want)
	}
	var ids2 []snowflake.ID
	issue2 := func(n int) {
		t.Helper()
		for range n {
			id, err := h2.Next()
			if err != nil {
				t.Fatal(err)
			}
			ids2 = append(ids2, id)
		}
	}
	issue2(5000)
	wall.AutoAdvance(false)

	// Resumed: the first holder's clock still reads the time of the suspend, and no
	// renewal has told it the lease is gone. It issues, stamped from where it was.
	resumed := len(ids1)
	issue1(5000)
	issue2(5000)
	// Its monotonic clock reaches the tick before its deadline: it issues that tick's
	// IDs, borrows nothing beyond it, and refuses from then on (its clock has not reached
	// the deadline: WorkerID still answers until it does).
	wall.Advance(deadline.Sub(mono.Now()) - time.Millisecond)
	var refused error
	for len(ids1) < resumed+5000+3*4096 {
		id, err := h1.Next()
		if err != nil {
			refused = err
			break
		}
		ids1 = append(ids1, id)
	}
	if !errors.Is(refused, lease.ErrNotHeld) {
		t.Fatalf("first holder at its deadline: %v, want a *NotHeldError", refused)
	}
	if _, err := h1.WorkerID(ctx); err != nil {
		t.Errorf("first holder's WorkerID a tick before its deadline: %v", err)
	}
	wall.Advance(time.Millisecond)
	if _, err := h1.WorkerID(ctx); !errors.Is(err, lease.ErrNotHeld) {
		t.Errorf("first holder's WorkerID at its deadline: %v", err)
	}
	if _, err := h1.Next(); !errors.Is(err, lease.ErrNotHeld) {
		t.Errorf("first holder's Next at its deadline: %v", err)
	}
	issue2(5000)

	lastTick := layout.Tick(deadline.Add(-time.Nanosecond))
	var max1 int64 = -1
	for _, id := range ids1 {
		p, _ := layout.Decode(id)
		if made := layout.TimeOf(p.Tick); !made.Before(deadline) {
			t.Fatalf("first holder's ID %d stamped %v, at or after its deadline %v", id, made, deadline)
		}
		max1 = max(max1, p.Tick)
	}
	if max1 != lastTick {
		t.Errorf("first holder's last tick %d, want %d, the last before its deadline", max1, lastTick)
	}
	min2 := int64(1) << 62
	for _, id := range ids2 {
		p, _ := layout.Decode(id)
		if p.Tick <= layout.Tick(a2.After) {
			t.Fatalf("next holder's ID %d in tick %d, not after its start time's %d", id, p.Tick, layout.Tick(a2.After))
		}
		min2 = min(min2, p.Tick)
	}
	all := append(slices.Clone(ids1), ids2...)
	slices.Sort(all)
	dups := len(all) - len(slices.Compact(all))
	if dups != 0 {
		t.Errorf("%d duplicates among %d IDs", dups, len(ids1)+len(ids2))
	}
	// The release of an ID the store gave away is refused: nothing is recorded.
	if err := h1.Close(ctx); !errors.Is(err, lease.ErrLost) {
		t.Errorf("first holder's Close: %v, want a *LostError", err)
	}
	t.Logf("first holder: %d IDs (%d after resuming), ticks up to %d, the last before its deadline; next holder: %d IDs from tick %d (%d ms later); %d duplicates",
		len(ids1), len(ids1)-resumed, max1, len(ids2), min2, min2-max1, dups)
}
