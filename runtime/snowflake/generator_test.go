package snowflake

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idgen/idgen/runtime/snowflake/snowflaketest"
)

// t0 is where fake clocks start: 30 days after the presets' epoch, on a tick boundary.
var t0 = time.Date(2025, 1, 31, 0, 0, 0, 0, time.UTC)

func newFake(t *testing.T, l Layout, opts Options) (*Generator, *snowflaketest.Clock) {
	t.Helper()
	clk := snowflaketest.NewClock(t0)
	opts.Clock = clk
	g, err := New(l, 7, opts)
	if err != nil {
		t.Fatal(err)
	}
	return g, clk
}

func mustNext(t *testing.T, g *Generator) ID {
	t.Helper()
	id, err := g.Next()
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func decode(t *testing.T, g *Generator, id ID) Parts {
	t.Helper()
	p, err := g.Layout().Decode(id)
	if err != nil {
		t.Fatal(err)
	}
	if p.Worker != g.Worker() {
		t.Fatalf("id %d has worker %d, want %d", id, p.Worker, g.Worker())
	}
	return p
}

// TestConcurrentUnique: 64 goroutines, 2 million IDs, each policy: no duplicate, and every
// goroutine sees its IDs strictly increase.
func TestConcurrentUnique(t *testing.T) {
	const goroutines, perG = 64, 2_000_000 / 64
	for _, tc := range []struct {
		name  string
		opts  Options
		bulk  int           // > 0: use NextN in blocks of this size
		ahead time.Duration // how far ahead of the clock IDs may be stamped
	}{
		{name: "wait", opts: Options{}},
		{name: "borrow", opts: Options{Exhaust: ExhaustBorrow, MaxDrift: 10 * time.Millisecond}, ahead: 10 * time.Millisecond},
		{name: "logical", opts: Options{Rollback: RollbackLogical}, ahead: DefaultMaxDrift},
		{name: "nextn", opts: Options{}, bulk: 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := New(Classic(), 5, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			out := make([][]ID, goroutines)
			var wg sync.WaitGroup
			for i := range goroutines {
				wg.Go(func() {
					ids := make([]ID, 0, perG)
					for len(ids) < perG {
						if tc.bulk > 0 {
							block, err := g.NextN(context.Background(), tc.bulk)
							if err != nil {
								t.Error(err)
								return
							}
							ids = append(ids, block...)
							continue
						}
						id, err := g.Next()
						if err != nil {
							t.Error(err)
							return
						}
						ids = append(ids, id)
					}
					out[i] = ids
				})
			}
			wg.Wait()
			var all []ID
			for i, ids := range out {
				for j := 1; j < len(ids); j++ {
					if ids[j] <= ids[j-1] {
						t.Fatalf("goroutine %d: id %d after %d", i, ids[j], ids[j-1])
					}
				}
				all = append(all, ids...)
			}
			if len(all) < 2_000_000 {
				t.Fatalf("%d IDs", len(all))
			}
			slices.Sort(all)
			for i := 1; i < len(all); i++ {
				if all[i] == all[i-1] {
					t.Fatalf("duplicate %d", all[i])
				}
			}
			last, err := g.Layout().Decode(all[len(all)-1])
			if err != nil || last.Worker != 5 {
				t.Fatalf("last %+v, %v", last, err)
			}
			if drift := time.Until(g.Layout().TimeOf(last.Tick)); drift > tc.ahead+time.Millisecond {
				t.Errorf("last ID is stamped %v ahead of the clock, more than %v", drift, tc.ahead)
			}
		})
	}
}

// TestFullTick: 4097 IDs in one tick of the classic layout: 4096 in the tick, the 4097th
// in the next, after a wait of exactly the rest of the tick (wait) or none (borrow).
func TestFullTick(t *testing.T) {
	for _, policy := range []ExhaustPolicy{ExhaustWait, ExhaustBorrow} {
		t.Run(policy.String(), func(t *testing.T) {
			g, clk := newFake(t, Classic(), Options{Exhaust: policy})
			clk.Advance(300 * time.Microsecond) // mid-tick
			clk.AutoAdvance(true)
			tick := Classic().Tick(clk.Now())
			var prev ID = -1
			for i := range 4096 {
				id := mustNext(t, g)
				p := decode(t, g, id)
				if p.Tick != tick || id <= prev {
					t.Fatalf("id %d: %+v after %d", i, p, prev)
				}
				prev = id
			}
			if len(clk.Slept()) != 0 {
				t.Fatalf("slept %v within the tick", clk.Slept())
			}
			id := mustNext(t, g)
			if p := decode(t, g, id); p.Tick != tick+1 || p.Seq != 0 {
				t.Fatalf("4097th: %+v", p)
			}
			switch policy {
			case ExhaustWait:
				if got := clk.Slept(); len(got) != 1 || got[0] != 700*time.Microsecond {
					t.Fatalf("slept %v, want [700µs]", got)
				}
			case ExhaustBorrow:
				if got := clk.Slept(); len(got) != 0 {
					t.Fatalf("borrow slept %v", got)
				}
			}
		})
	}
	t.Run("NextN", func(t *testing.T) {
		g, clk := newFake(t, Classic(), Options{})
		clk.AutoAdvance(true)
		ids, err := g.NextN(context.Background(), 4097)
		if err != nil {
			t.Fatal(err)
		}
		if len(ids) != 4097 || !slices.IsSorted(ids) {
			t.Fatalf("%d ids, sorted %v", len(ids), slices.IsSorted(ids))
		}
		a, b := decode(t, g, ids[4095]), decode(t, g, ids[4096])
		if a.Tick+1 != b.Tick || b.Seq != 0 {
			t.Fatalf("%+v then %+v", a, b)
		}
	})
}

// TestRollback runs each rollback size while idle, while the tick is exhausted and while a
// caller waits for the next tick, under each policy.
func TestRollback(t *testing.T) {
	const maxWait, maxDrift = time.Second, 10 * time.Millisecond
	sizes := []time.Duration{time.Millisecond, 5 * time.Millisecond, 5 * time.Second, 8 * time.Hour}
	policies := []RollbackPolicy{RollbackWait, RollbackFail, RollbackLogical}
	for _, when := range []string{"idle", "exhausted", "waiting"} {
		for _, policy := range policies {
			for _, size := range sizes {
				t.Run(fmt.Sprintf("%s/%v/%v", when, policy, size), func(t *testing.T) {
					obs := &countObserver{}
					g, clk := newFake(t, Classic(), Options{Rollback: policy, MaxWait: maxWait, MaxDrift: maxDrift, Observer: obs})
					n := 3
					switch {
					case when == "exhausted":
						n = 4096
					case when == "waiting" && policy == RollbackLogical:
						n = 4096 * 11 // the current tick and the 10 the drift lets it borrow
					case when == "waiting":
						n = 4096
					}
					issued, err := g.NextN(context.Background(), n)
					if err != nil {
						t.Fatal(err)
					}
					lastTick := decode(t, g, issued[len(issued)-1]).Tick

					var id ID
					switch when {
					case "idle", "exhausted":
						clk.Set(clk.Now().Add(-size))
						clk.AutoAdvance(true)
						id, err = g.Next()
					case "waiting":
						done := make(chan struct{})
						go func() {
							defer close(done)
							id, err = g.Next()
						}()
						ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
						defer cancel()
						if err := clk.WaitSleepers(ctx, 1); err != nil {
							t.Fatal("no caller waits for the next tick")
						}
						// The wall clock steps back while the caller sleeps; when its tick
						// comes it reads a clock size behind the last one it saw.
						clk.Set(clk.Now().Add(-size - time.Millisecond))
						clk.AutoAdvance(true)
						clk.Advance(time.Millisecond)
						<-done
					}
					slept := clk.Slept()
					var total time.Duration
					for _, d := range slept {
						total += d
						if d > maxWait {
							t.Errorf("one wait of %v, above MaxWait", d)
						}
					}

					wantOK := false
					switch policy {
					case RollbackWait:
						wantOK = size <= maxWait
					case RollbackLogical:
						wantOK = size <= maxDrift
					}
					if !wantOK {
						var cbe *ClockBehindError
						if !errors.As(err, &cbe) || !errors.Is(err, ErrClockBehind) {
							t.Fatalf("got %v, %v; want a *ClockBehindError", id, err)
						}
						if cbe.Behind < size-2*time.Millisecond || cbe.Behind > size+maxDrift+2*time.Millisecond {
							t.Errorf("error says %v behind, want about %v: %v", cbe.Behind, size, err)
						}
						if obs.rollbacks.Load() == 0 {
							t.Error("observer saw no rollback")
						}
						return
					}
					if err != nil {
						t.Fatal(err)
					}
					if id <= issued[len(issued)-1] {
						t.Fatalf("id %d not above the last issued %d", id, issued[len(issued)-1])
					}
					p := decode(t, g, id)
					if p.Tick <= lastTick-1 || (when != "idle" && p.Tick <= lastTick) {
						t.Fatalf("tick %d reuses the last issued tick %d", p.Tick, lastTick)
					}
					switch policy {
					case RollbackWait:
						if total > size+2*time.Millisecond {
							t.Errorf("waited %v (%v) for a %v rollback", total, slept, size)
						}
					case RollbackLogical:
						if when != "waiting" && total != 0 {
							t.Errorf("logical clock waited %v", slept)
						}
						if ahead := Classic().TimeOf(p.Tick).Sub(clk.Now()); ahead <= 0 || ahead > maxDrift {
							t.Errorf("logical ID %v ahead of the clock, want (0, %v]", ahead, maxDrift)
						}
					}
				})
			}
		}
	}
}

// TestAfter: a generator that takes over a worker ID never issues at or before the time the
// previous holder recorded, whatever its clock says.
func TestAfter(t *testing.T) {
	after := t0.Add(10 * time.Millisecond)
	for _, policy := range []RollbackPolicy{RollbackWait, RollbackLogical, RollbackFail} {
		clk := snowflaketest.NewClock(t0)
		clk.AutoAdvance(true)
		g, err := New(Classic(), 3, Options{Clock: clk, After: after, Rollback: policy, MaxDrift: 20 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		if !g.Last().Equal(after) {
			t.Errorf("Last = %v before any ID, want %v", g.Last(), after)
		}
		id, err := g.Next()
		if policy == RollbackFail {
			if !errors.Is(err, ErrClockBehind) {
				t.Errorf("fail: %v", err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%v: %v", policy, err)
		}
		tm, _ := Classic().Time(id)
		if !tm.After(after) {
			t.Errorf("%v: id at %v, not after %v", policy, tm, after)
		}
	}
}

// TestLifetimeEnd issues the whole last tick of a layout, then gets ErrLifetimeOver.
func TestLifetimeEnd(t *testing.T) {
	l := Layout{Epoch: t0.Add(-20 * time.Second), Unit: time.Second, TimeBits: 5, WorkerBits: 50, SeqBits: 8}
	for _, policy := range []ExhaustPolicy{ExhaustWait, ExhaustBorrow} {
		clk := snowflaketest.NewClock(l.End().Add(-time.Second))
		clk.AutoAdvance(true)
		g, err := New(l, 1, Options{Clock: clk, Exhaust: policy})
		if err != nil {
			t.Fatal(err)
		}
		for range 256 {
			id := mustNext(t, g)
			if p := decode(t, g, id); p.Tick != l.MaxTick() {
				t.Fatalf("tick %d, want the last, %d", p.Tick, l.MaxTick())
			}
		}
		if _, err := g.Next(); !errors.Is(err, ErrLifetimeOver) {
			t.Fatalf("%v: after the last tick: %v", policy, err)
		}
		if _, err := g.NextN(context.Background(), 2); !errors.Is(err, ErrLifetimeOver) {
			t.Fatalf("NextN after the last tick: %v", err)
		}
		clk.Advance(time.Hour)
		if _, err := g.Next(); !errors.Is(err, ErrLifetimeOver) {
			t.Fatalf("an hour after the end: %v", err)
		}
	}
	clk := snowflaketest.NewClock(l.End())
	if _, err := New(l, 1, Options{Clock: clk}); !errors.Is(err, ErrLifetimeOver) {
		t.Fatalf("New after the end: %v", err)
	}
}

func TestBeforeEpoch(t *testing.T) {
	g, clk := newFake(t, Classic(), Options{})
	clk.Set(Classic().Epoch.Add(-time.Minute))
	if _, err := g.Next(); !errors.Is(err, ErrBeforeEpoch) {
		t.Fatalf("got %v", err)
	}
}

// TestShardSpread: at one ID per tick, id % 16 must spread evenly, where restarting every
// tick's sequence at 0 would put every ID on shard 0.
func TestShardSpread(t *testing.T) {
	for _, every := range []time.Duration{time.Millisecond, 3 * time.Millisecond, 50 * time.Millisecond} {
		g, clk := newFake(t, Classic(), Options{})
		var shards [16]int
		const n = 16 * 1000
		for range n {
			shards[mustNext(t, g)%16]++
			clk.Advance(every)
		}
		t.Logf("one ID every %v: id %% 16 counts %v", every, shards)
		for s, c := range shards {
			if c < n/16*9/10 || c > n/16*11/10 {
				t.Errorf("one ID every %v: shard %d holds %d of %d", every, s, c, n)
			}
		}
	}
	// Two IDs a tick: still even.
	g, clk := newFake(t, Classic(), Options{})
	var shards [16]int
	for range 8000 {
		shards[mustNext(t, g)%16]++
		shards[mustNext(t, g)%16]++
		clk.Advance(time.Millisecond)
	}
	for s, c := range shards {
		if c != 1000 {
			t.Errorf("two a tick: shard %d holds %d, want 1000 (%v)", s, c, shards)
		}
	}
}

// TestCatchUp: a waiter that wakes late still issues in the tick it waited for.
func TestCatchUp(t *testing.T) {
	g, clk := newFake(t, Classic(), Options{})
	for range 4096 {
		mustNext(t, g)
	}
	done := make(chan ID)
	go func() { done <- mustNext(t, g) }()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := clk.WaitSleepers(ctx, 1); err != nil {
		t.Fatal(err)
	}
	clk.Advance(2500 * time.Microsecond) // woke 1.5 ticks late
	id := <-done
	if p := decode(t, g, id); p.Tick != Classic().Tick(t0)+1 {
		t.Fatalf("woke at tick %d, want the next one, %d", p.Tick, Classic().Tick(t0)+1)
	}
	// With catch-up off, the late waiter skips to the clock's tick.
	g, clk = newFake(t, Classic(), Options{CatchUp: -1})
	for range 4096 {
		mustNext(t, g)
	}
	go func() { done <- mustNext(t, g) }()
	if err := clk.WaitSleepers(ctx, 1); err != nil {
		t.Fatal(err)
	}
	clk.Advance(2500 * time.Microsecond)
	if p := decode(t, g, <-done); p.Tick != Classic().Tick(t0)+2 {
		t.Fatalf("catch-up off: tick %d", p.Tick)
	}
	// After a pause longer than CatchUp, IDs carry the clock's time again.
	g, clk = newFake(t, Classic(), Options{})
	clk.AutoAdvance(true)
	for range 4096 * 3 {
		mustNext(t, g)
	}
	clk.Advance(time.Second)
	if p := decode(t, g, mustNext(t, g)); p.Tick != Classic().Tick(clk.Now()) {
		t.Fatalf("after a pause: tick %d, clock %d", p.Tick, Classic().Tick(clk.Now()))
	}
}

func TestContextCancel(t *testing.T) {
	g, _ := newFake(t, Classic(), Options{})
	for range 4096 {
		mustNext(t, g)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := g.NextContext(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v", err)
	}
	if _, err := g.NextN(ctx, 10); !errors.Is(err, context.Canceled) {
		t.Fatalf("NextN: %v", err)
	}
}

func TestBorrowDriftBound(t *testing.T) {
	obs := &countObserver{}
	g, clk := newFake(t, Classic(), Options{Exhaust: ExhaustBorrow, MaxDrift: 3 * time.Millisecond, Observer: obs})
	start := Classic().Tick(t0)
	ids, err := func() ([]ID, error) {
		clk.AutoAdvance(true)
		return g.NextN(context.Background(), 4096*6)
	}()
	if err != nil {
		t.Fatal(err)
	}
	// 4 ticks (the current one and 3 borrowed) came without waiting; the rest after.
	var ticks []int64
	for _, id := range ids {
		if p := decode(t, g, id); len(ticks) == 0 || ticks[len(ticks)-1] != p.Tick {
			ticks = append(ticks, p.Tick)
		}
	}
	if want := []int64{start, start + 1, start + 2, start + 3, start + 4, start + 5}; !slices.Equal(ticks, want) {
		t.Fatalf("ticks %v, want %v", ticks, want)
	}
	if got := clk.Slept(); len(got) == 0 {
		t.Fatal("never waited at the drift bound")
	}
	if obs.maxDrift.Load() > int64(3*time.Millisecond) || obs.maxDrift.Load() == 0 {
		t.Errorf("observed drift %v", time.Duration(obs.maxDrift.Load()))
	}
	if obs.issued.Load() != 4096*6 {
		t.Errorf("observer counted %d", obs.issued.Load())
	}
}

func TestNewErrors(t *testing.T) {
	for _, tc := range []struct {
		worker int64
		opts   Options
		want   error
	}{
		{worker: 1024, want: ErrOutOfRange},
		{worker: -1, want: ErrOutOfRange},
		{opts: Options{MaxWait: -1}},
		{opts: Options{MaxDrift: -1}},
		{opts: Options{Rollback: 9}},
		{opts: Options{Exhaust: 9}},
	} {
		_, err := New(Classic(), tc.worker, tc.opts)
		if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) {
			t.Errorf("New(%d, %+v) = %v", tc.worker, tc.opts, err)
		}
	}
}

func TestTickerStops(t *testing.T) {
	g, err := New(Classic(), 1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for range 10000 {
		if _, err := g.Next(); err != nil {
			t.Fatal(err)
		}
	}
	if g.coarse.Load() < 0 && !g.ticking.Load() {
		t.Fatal("ticker did not start under load")
	}
	deadline := time.Now().Add(5 * time.Second)
	for g.ticking.Load() && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if g.ticking.Load() || g.coarse.Load() >= 0 {
		t.Fatal("ticker still running after the generator went idle")
	}
	// The first ID after going idle is stamped with the time it was made, not the ticker's
	// last tick: between a read of the generator's clock before and one after, give or take
	// the 1 ms unit. The generator's clock, not time.Now: it is the wall time read at start
	// plus the monotonic time since, by design, so a step of the system clock while the test
	// runs (a VM's time sync moved it 1 ms in one CI run) is not the generator's to follow.
	before := g.sys.Now()
	id, _ := g.Next()
	after := g.sys.Now()
	if tm, _ := Classic().Time(id); tm.Before(before.Add(-time.Millisecond)) || tm.After(after.Add(time.Millisecond)) {
		t.Errorf("ID after idle is stamped %v, not between %v and %v", tm, before, after)
	}
}

type countObserver struct {
	issued, waits, rollbacks, maxDrift atomic.Int64
}

func (o *countObserver) Issued(n int)               { o.issued.Add(int64(n)) }
func (o *countObserver) Waited(time.Duration)       { o.waits.Add(1) }
func (o *countObserver) RollbackSeen(time.Duration) { o.rollbacks.Add(1) }
func (o *countObserver) Drift(d time.Duration) {
	for {
		cur := o.maxDrift.Load()
		if int64(d) <= cur || o.maxDrift.CompareAndSwap(cur, int64(d)) {
			return
		}
	}
}

// TestTickerRestartsAhead: a borrowing generator that is ahead of the clock when its ticker
// stops gets the ticker back when it is busy again, rather than reading the clock per ID.
func TestTickerRestartsAhead(t *testing.T) {
	g, err := New(Classic(), 1, Options{Exhaust: ExhaustBorrow, MaxDrift: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	for range 10000 {
		g.Next()
	}
	// Borrowed ten seconds ahead of the clock, as a burst under ExhaustBorrow leaves it.
	g.state.Store(g.pack(Classic().Tick(time.Now())+10_000, 0))
	deadline := time.Now().Add(5 * time.Second)
	for g.ticking.Load() && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if g.ticking.Load() {
		t.Fatal("ticker did not stop")
	}
	if last, _ := g.unpack(g.state.Load()); last <= Classic().Tick(time.Now()) {
		t.Fatal("the clock caught up with the borrowed ticks before the ticker stopped")
	}
	for range 10 {
		g.Next()
	}
	if !g.ticking.Load() || g.coarse.Load() < 0 {
		t.Fatal("ticker not restarted for a busy generator ahead of the clock")
	}
}
