package snowflake

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestGateAllows: the zero gate allows nothing; an open one allows stamps before its
// deadline only, compared without monotonic readings (stamps have none); Close allows
// nothing again.
func TestGateAllows(t *testing.T) {
	var g Gate
	if g.Allows(t0) || !g.Deadline().IsZero() {
		t.Fatal("zero gate allows a stamp or has a deadline")
	}
	now := time.Now() // with a monotonic reading
	g.OpenUntil(now)
	for _, tc := range []struct {
		stamp time.Time
		want  bool
	}{
		{now.Add(-time.Nanosecond), true},
		{now, false},
		{now.Round(0), false},
		{now.Add(time.Nanosecond), false},
	} {
		if got := g.Allows(tc.stamp); got != tc.want {
			t.Errorf("deadline %v: Allows(%v) = %v, want %v", now, tc.stamp, got, tc.want)
		}
	}
	if d := g.Deadline(); !d.Equal(now) || d != d.Round(0) {
		t.Errorf("Deadline() = %v, want %v without a monotonic reading", d, now.Round(0))
	}
	g.Close()
	if g.Allows(now.Add(-time.Hour)) || !g.Deadline().IsZero() {
		t.Error("closed gate allows a stamp or has a deadline")
	}
}

// TestGate: a gated generator stamps IDs only in ticks that start before the deadline: the
// last is the tick before it, whatever the policies would allow (here borrowing ticks
// ahead of the clock), Next and NextN alike, and nothing while closed.
func TestGate(t *testing.T) {
	var gate Gate
	g, clk := newFake(t, Classic(), Options{Gate: &gate, Exhaust: ExhaustBorrow, MaxDrift: time.Second})
	if _, err := g.Next(); !errors.Is(err, ErrGateClosed) {
		t.Fatalf("zero gate: %v", err)
	}
	// Deadline mid-tick: tick t0+2ms starts before it and is allowed, t0+3ms is not.
	deadline := t0.Add(2*time.Millisecond + 500*time.Microsecond)
	gate.OpenUntil(deadline)
	last := Classic().Tick(t0) + 2
	var n int
	for {
		id, err := g.Next()
		if err != nil {
			if !errors.Is(err, ErrGateClosed) {
				t.Fatal(err)
			}
			break
		}
		if p := decode(t, g, id); p.Tick > last {
			t.Fatalf("ID %d stamped in tick %d, after the last tick %d before the deadline", n, p.Tick, last)
		}
		n++
	}
	// Three ticks of 4,096 IDs (the first two borrowed ahead of the clock), then refused
	// though the drift would allow a second's worth.
	if n != 3*4096 {
		t.Errorf("issued %d IDs before the deadline, want %d", n, 3*4096)
	}

	// NextN never reserves a tick at or after the deadline: one that needs more fails,
	// returning nothing (what it reserved before the deadline is not issued again).
	gate.OpenUntil(t0.Add(5 * time.Millisecond))
	if ids, err := g.NextN(context.Background(), 4*4096); !errors.Is(err, ErrGateClosed) || len(ids) != 0 {
		t.Fatalf("NextN over the deadline: %d IDs, %v", len(ids), err)
	}
	if tick := Classic().Tick(g.Last()); tick != last+2 {
		t.Errorf("after NextN over the deadline the last tick reserved is %d, want %d", tick, last+2)
	}
	gate.OpenUntil(t0.Add(6 * time.Millisecond))
	ids, err := g.NextN(context.Background(), 4096)
	if err != nil {
		t.Fatal(err)
	}
	if p := decode(t, g, ids[len(ids)-1]); p.Tick != last+3 {
		t.Errorf("NextN's last ID in tick %d, want %d", p.Tick, last+3)
	}

	// The clock at the deadline: refused, even at the start of a tick.
	clk.Advance(6 * time.Millisecond)
	if _, err := g.Next(); !errors.Is(err, ErrGateClosed) {
		t.Fatalf("clock at the deadline: %v", err)
	}
	gate.OpenUntil(t0.Add(time.Minute))
	if _, err := g.Next(); err != nil {
		t.Fatalf("reopened: %v", err)
	}
	gate.Close()
	if _, err := g.Next(); !errors.Is(err, ErrGateClosed) {
		t.Fatalf("closed: %v", err)
	}
	if _, err := g.NextN(context.Background(), 5); !errors.Is(err, ErrGateClosed) {
		t.Fatalf("NextN closed: %v", err)
	}
}

// TestGateStaleTick: a process resumed after a pause (its cached tick from before it)
// issues from that tick on the fast path without reading the clock, stamped before the
// deadline though the clock is past it; the first ID that would be stamped at or after
// the deadline goes to the slow path, which reads the clock and refuses.
func TestGateStaleTick(t *testing.T) {
	var gate Gate
	g, err := New(Classic(), 1, Options{Gate: &gate})
	if err != nil {
		t.Fatal(err)
	}
	// Paused 100 ms ago, in tick stale, with the deadline one tick later: the ticker
	// (not started here) has not run since.
	stale := Classic().Tick(time.Now()) - 100
	gate.OpenUntil(Classic().TimeOf(stale + 1))
	g.state.Store(g.pack(stale, 5))
	g.coarse.Store(stale)

	id, ok := g.fast()
	if !ok {
		t.Fatal("fast path refused an ID stamped before the deadline")
	}
	if p := decode(t, g, id); p.Tick != stale || p.Seq != 6 {
		t.Errorf("stale ID in tick %d seq %d, want tick %d seq 6", p.Tick, p.Seq, stale)
	}
	// The tick is used up: the next ID would be in the deadline's tick.
	g.state.Store(g.pack(stale, g.seqMask))
	if _, ok := g.fast(); ok {
		t.Fatal("fast path issued an ID stamped at the deadline")
	}
	if _, err := g.Next(); !errors.Is(err, ErrGateClosed) {
		t.Fatalf("Next past the deadline: %v", err)
	}
	// Closed: nothing, even from the cached tick with sequence numbers left.
	gate.OpenUntil(time.Now().Add(time.Hour))
	g.state.Store(g.pack(stale, 5))
	gate.Close()
	if _, ok := g.fast(); ok {
		t.Fatal("fast path issued through a closed gate")
	}
}

// TestGateTicker: a busy gated generator caches the clock like an ungated one, so its IDs
// cost no clock read.
func TestGateTicker(t *testing.T) {
	var gate Gate
	gate.OpenUntil(time.Now().Add(time.Hour))
	g, err := New(Classic(), 1, Options{Gate: &gate})
	if err != nil {
		t.Fatal(err)
	}
	for range 100 {
		if _, err := g.Next(); err != nil {
			t.Fatal(err)
		}
	}
	if !g.ticking.Load() || g.coarse.Load() < 0 {
		t.Fatal("busy gated generator does not cache the clock")
	}
	if _, ok := g.fast(); !ok {
		t.Fatal("fast path refused under an open gate")
	}
}
