package snowflake

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idgen/idgen/runtime/snowflake/snowflaketest"
)

// countingObserver is an IssuedCounter that fails the test if told of an ID.
type countingObserver struct {
	t      *testing.T
	issued func() uint64
	calls  int
}

func (o *countingObserver) CountIssued(f func() uint64) { o.issued, o.calls = f, o.calls+1 }
func (o *countingObserver) Issued(int)                  { o.t.Error("Issued called on an IssuedCounter") }
func (o *countingObserver) Waited(time.Duration)        {}
func (o *countingObserver) RollbackSeen(time.Duration)  {}
func (o *countingObserver) Drift(time.Duration)         {}

// TestIssuedDeterministic: Issued counts every ID of Next and NextN exactly, across used-up
// ticks (waited for and borrowed), quiet ticks whose sequence rotates, a rollback under
// RollbackLogical, NextN spans over several ticks, and an inherited After. An
// IssuedCounter gets the count once, at New, and never an Issued call.
func TestIssuedDeterministic(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts Options
	}{
		{"wait", Options{}},
		{"borrow", Options{Exhaust: ExhaustBorrow, MaxDrift: time.Hour}},
		{"logical", Options{Rollback: RollbackLogical, MaxDrift: time.Hour, After: t0.Add(5 * time.Millisecond)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk := snowflaketest.NewClock(t0)
			clk.AutoAdvance(true)
			obs := &countingObserver{t: t}
			opts := tc.opts
			opts.Clock, opts.Observer = clk, obs
			l := Layout{Epoch: Classic().Epoch, Unit: time.Millisecond, TimeBits: 41, WorkerBits: 18, SeqBits: 4}
			g, err := New(l, 3, opts)
			if err != nil {
				t.Fatal(err)
			}
			if obs.calls != 1 || obs.issued() != 0 {
				t.Fatalf("CountIssued called %d times, count %d; want once, 0", obs.calls, obs.issued())
			}
			want := uint64(0)
			check := func(what string) {
				t.Helper()
				if got := g.Issued(); got != want || obs.issued() != want {
					t.Fatalf("after %s: Issued %d (observer %d), want %d", what, got, obs.issued(), want)
				}
			}
			for range 40 { // 16 per tick: used-up ticks
				if _, err := g.Next(); err != nil {
					t.Fatal(err)
				}
				want++
				check("Next")
			}
			for _, n := range []int{1, 5, 16, 17, 50, 3} {
				ids, err := g.NextN(context.Background(), n)
				if err != nil || len(ids) != n {
					t.Fatalf("NextN(%d): %d IDs, %v", n, len(ids), err)
				}
				want += uint64(n)
				check("NextN")
			}
			for range 5 { // quiet ticks: the sequence starts where it stopped, rotated
				clk.Advance(3 * time.Millisecond)
				if _, err := g.Next(); err != nil {
					t.Fatal(err)
				}
				want++
				check("a quiet tick")
			}
			clk.Advance(-2 * time.Millisecond) // back: RollbackLogical goes on, the others wait
			for range 20 {
				if _, err := g.Next(); err != nil {
					t.Fatal(err)
				}
				want++
			}
			check("a rollback")
		})
	}
}

// TestIssuedConcurrent: under -race, callers of Next and NextN on the system clock while
// another reads Issued: the count read never decreases, never exceeds the IDs handed out
// by then, and equals them once the callers returned.
func TestIssuedConcurrent(t *testing.T) {
	for _, opts := range []Options{{}, {Exhaust: ExhaustBorrow, MaxDrift: time.Second}} {
		g, err := New(Classic(), 1, opts)
		if err != nil {
			t.Fatal(err)
		}
		var handed atomic.Uint64 // added to before a call, so it is never below the count
		var wg sync.WaitGroup
		stop := make(chan struct{})
		var readerDone sync.WaitGroup
		readerDone.Go(func() {
			last := uint64(0)
			for {
				select {
				case <-stop:
					return
				default:
				}
				n := g.Issued()
				if h := handed.Load(); n > h {
					t.Errorf("Issued %d with at most %d IDs handed out", n, h)
					return
				}
				if n < last {
					t.Errorf("Issued went down: %d after %d", n, last)
					return
				}
				last = n
			}
		})
		for w := range 8 {
			wg.Go(func() {
				for i := range 20000 {
					if (i+w)%100 == 0 {
						n := 1 + (i+w)%7000
						handed.Add(uint64(n))
						if ids, err := g.NextN(context.Background(), n); err != nil || len(ids) != n {
							t.Errorf("NextN(%d): %d, %v", n, len(ids), err)
						}
						continue
					}
					handed.Add(1)
					if _, err := g.Next(); err != nil {
						t.Error(err)
					}
				}
			})
		}
		wg.Wait()
		close(stop)
		readerDone.Wait()
		if got, want := g.Issued(), handed.Load(); got != want {
			t.Errorf("Issued %d after the callers returned, want %d", got, want)
		}
	}
}

// TestIssuedFailedNextN: the IDs a NextN reserved before it failed are dropped and not
// counted: a cancelled wait for the next tick, and a gate's deadline.
func TestIssuedFailedNextN(t *testing.T) {
	l := Layout{Epoch: Classic().Epoch, Unit: time.Millisecond, TimeBits: 41, WorkerBits: 18, SeqBits: 4}
	t.Run("cancelled", func(t *testing.T) {
		clk := snowflaketest.NewClock(t0) // no AutoAdvance: the second tick is waited for
		g, err := New(l, 1, Options{Clock: clk})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if ids, err := g.NextN(ctx, 40); err == nil || len(ids) != 0 {
			t.Fatalf("NextN with a cancelled ctx: %d IDs, %v; want none and an error", len(ids), err)
		}
		if n := g.Issued(); n != 0 {
			t.Fatalf("Issued %d after a NextN that failed, want 0", n)
		}
		clk.Advance(time.Millisecond)
		if _, err := g.NextN(context.Background(), 3); err != nil {
			t.Fatal(err)
		}
		if n := g.Issued(); n != 3 {
			t.Fatalf("Issued %d, want 3", n)
		}
	})
	t.Run("gate", func(t *testing.T) {
		clk := snowflaketest.NewClock(t0)
		gate := &Gate{}
		gate.OpenUntil(t0.Add(3 * time.Millisecond))
		g, err := New(l, 1, Options{Clock: clk, Gate: gate, Exhaust: ExhaustBorrow, MaxDrift: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		if ids, err := g.NextN(context.Background(), 100); !errors.Is(err, ErrGateClosed) || len(ids) != 0 {
			t.Fatalf("NextN past the gate: %d IDs, %v; want none and ErrGateClosed", len(ids), err)
		}
		if n := g.Issued(); n != 0 {
			t.Fatalf("Issued %d after a NextN that failed, want 0", n)
		}
	})
}
