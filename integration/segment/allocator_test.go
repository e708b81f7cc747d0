package segment_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idgen/idgen/runtime/segment"
)

// TestConcurrent draws from one tag through two allocators (two processes in one) with
// many goroutines each, on every store: every ID once, each goroutine's IDs increasing.
func TestConcurrent(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			s := openT(t, k.setup(t, "concurrent"))
			opts := segment.Options{Step: 20, MinStep: 20, MaxStep: 320, Target: 10 * time.Millisecond}
			allocs := []*segment.Allocator{newT(t, s, "order", opts), newT(t, s, "order", opts)}
			const goroutines, per = 8, 1000
			ids := make([][]int64, goroutines)
			var wg sync.WaitGroup
			for g := range goroutines {
				wg.Go(func() {
					a := allocs[g%2]
					for i := range per {
						var id int64
						var err error
						if i%100 == 0 {
							var s []int64
							s, err = a.NextN(context.Background(), 1)
							if err == nil {
								id = s[0]
							}
						} else {
							id, err = a.NextInt64(context.Background())
						}
						if err != nil {
							t.Error(err)
							return
						}
						ids[g] = append(ids[g], id)
					}
				})
			}
			wg.Wait()
			var all []int64
			for g, s := range ids {
				if !slices.IsSorted(s) {
					t.Errorf("goroutine %d: IDs not increasing", g)
				}
				for i := 1; i < len(s); i++ {
					if s[i] <= s[i-1] {
						t.Errorf("goroutine %d: %d after %d", g, s[i], s[i-1])
						break
					}
				}
				all = append(all, s...)
			}
			slices.Sort(all)
			if n := len(slices.Compact(slices.Clone(all))); n != goroutines*per {
				t.Errorf("%d distinct IDs among %d", n, goroutines*per)
			}
			for i, a := range allocs {
				t.Logf("allocator %d: %+v", i, a.Stats())
			}
		})
	}
}

// TestDoubleBuffer: with a store 1 ms away and blocks lasting twenty times longer, only the
// first call waits for the store; every later block is reserved in the background before
// it is needed.
func TestDoubleBuffer(t *testing.T) {
	f := &flaky{Store: openT(t, sqliteTarget(t)), latency: time.Millisecond}
	a := newT(t, f, "order", segment.Options{Step: 200, MinStep: 200, MaxStep: 200, Threshold: 0.2})
	ctx := context.Background()
	var worst time.Duration
	prev := int64(0)
	for i := range 1200 {
		start := time.Now()
		id, err := a.NextInt64(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if id != prev+1 {
			t.Fatalf("ID %d after %d", id, prev)
		}
		prev = id
		if i > 0 {
			worst = max(worst, time.Since(start))
		}
		// A block of 200 lasts >= 200 ms, so the background fetch, started 40 IDs in,
		// has >= 160 ms against a 1 ms store, even on a loaded CI machine.
		time.Sleep(time.Millisecond)
	}
	st := a.Stats()
	f.mu.Lock()
	slowest := f.slowest
	f.mu.Unlock()
	switch {
	case st.Reserved < 6:
		t.Errorf("stats %+v: want at least 6 blocks", st)
	case st.Waited == 1:
	case slowest < 100*time.Millisecond:
		// A block lasts >= 200 ms, so only a reservation that itself took most of that
		// (a loaded machine's disk stalling SQLite's commit) excuses a second wait.
		t.Errorf("stats %+v: want 1 wait (the first block); the slowest reservation took %v", st, slowest)
	default:
		t.Logf("a reservation took %v, longer than a block lasts: %d waits", slowest, st.Waited)
	}
	t.Logf("stats %+v; slowest call after the first %v; slowest reservation %v (store latency 1ms)", st, worst, slowest)
}

// TestAdaptiveStep drives the step with a fake clock: reservations 1 s apart double it
// up to MaxStep, 5 min apart halve it down to MinStep, 90 s apart (between Target and
// twice Target) keep it.
func TestAdaptiveStep(t *testing.T) {
	clock := newFakeClock()
	f := &flaky{Store: openT(t, sqliteTarget(t))}
	a := newT(t, f, "order", segment.Options{Step: 10, MinStep: 10, MaxStep: 80, Target: time.Minute, Now: clock.Now})
	ctx := context.Background()
	gaps := []time.Duration{0, time.Second, time.Second, time.Second, time.Second,
		5 * time.Minute, 5 * time.Minute, 90 * time.Second, 5 * time.Minute, 5 * time.Minute}
	want := []int64{10, 20, 40, 80, 80, 40, 20, 20, 10, 10}
	prev := int64(0)
	for i, gap := range gaps {
		clock.Add(gap)
		// Draw until the allocator starts the next reservation: the step is chosen then,
		// under the clock just set.
		for len(f.calls()) < i+1 {
			id, err := a.NextInt64(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if id <= prev {
				t.Fatalf("ID %d after %d", id, prev)
			}
			prev = id
		}
	}
	if got := f.calls(); !slices.Equal(got, want) {
		t.Errorf("steps %v, want %v", got, want)
	}
}

// TestStoreDown: buffered IDs outlast the store; then a typed error wrapping the store's;
// a reservation whose reply was lost is a gap; after recovery, and after a restart, IDs
// only go up.
func TestStoreDown(t *testing.T) {
	clock := newFakeClock()
	f := &flaky{Store: openT(t, sqliteTarget(t))}
	opts := segment.Options{Step: 100, MinStep: 100, MaxStep: 100, Threshold: 0.5, Retry: time.Second, Now: clock.Now}
	a := newT(t, f, "order", opts)
	ctx := context.Background()
	var got []int64
	draw := func(n int) error {
		t.Helper()
		for range n {
			id, err := a.NextInt64(ctx)
			if err != nil {
				return err
			}
			got = append(got, id)
		}
		return nil
	}
	if err := draw(10); err != nil {
		t.Fatal(err)
	}
	f.set(true, false)
	// Passing the threshold starts a reservation that fails; the buffered IDs still come.
	if err := draw(90); err != nil {
		t.Fatalf("buffered IDs: %v", err)
	}
	waitFor(t, "the failed reservation", func() bool { return a.Stats().Failed >= 1 })
	for range 3 { // within Retry: at once, without the store
		err := draw(1)
		var ue *segment.UnavailableError
		if !errors.As(err, &ue) || !errors.Is(err, segment.ErrUnavailable) || !errors.Is(err, errDown) || ue.Tag != "order" {
			t.Fatalf("store down, buffer empty: %v", err)
		}
	}
	calls := len(f.calls())
	clock.Add(2 * time.Second) // past Retry: the caller tries the store and waits for it
	if err := draw(1); !errors.Is(err, segment.ErrUnavailable) || len(f.calls()) != calls+1 {
		t.Fatalf("after Retry: %v, %d calls (before %d)", err, len(f.calls()), calls)
	}

	// The store reserves but the reply is lost: that block is a gap.
	clock.Add(2 * time.Second)
	f.set(false, true)
	if err := draw(1); !errors.Is(err, segment.ErrUnavailable) {
		t.Fatalf("lost reply: %v", err)
	}
	lostBlock := f.ranges[len(f.ranges)-1]

	clock.Add(2 * time.Second)
	f.set(false, false)
	if err := draw(150); err != nil {
		t.Fatalf("after recovery: %v", err)
	}
	// A restart loses the buffered rest of the block: a gap.
	b := newT(t, f, "order", opts)
	id, err := b.NextInt64(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, id)
	for i := 1; i < len(got); i++ {
		if got[i] <= got[i-1] {
			t.Fatalf("ID %d after %d", got[i], got[i-1])
		}
	}
	for _, id := range got {
		if lostBlock.First <= id && id <= lostBlock.Last {
			t.Fatalf("ID %d from block %v, whose reservation reported failure", id, lostBlock)
		}
	}
	t.Logf("IDs %d..%d, lost block %v, restart resumed at %d; stats %+v", got[0], got[len(got)-2], lostBlock, id, a.Stats())
}

// TestStoreMovesBack: a store that returns a block not above the last one (a Redis that
// lost its data) is refused rather than repeating IDs.
func TestStoreMovesBack(t *testing.T) {
	s, db := openSQLite(t)
	a := newT(t, s, "order", segment.Options{Step: 10, MinStep: 10, MaxStep: 10})
	ctx := context.Background()
	if _, err := a.NextN(ctx, 10); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the second block", func() bool { return a.Stats().Buffered == 10 })
	if _, err := db.ExecContext(ctx, "UPDATE idgen_segment SET max_id = 0"); err != nil {
		t.Fatal(err)
	}
	ids, err := a.NextN(ctx, 15)
	if !errors.Is(err, segment.ErrUnavailable) || len(ids) != 10 || ids[9] != 20 {
		t.Fatalf("NextN after the store moved back = %v, %v", ids, err)
	}
}

func TestNextN(t *testing.T) {
	a := newT(t, openT(t, sqliteTarget(t)), "order", segment.Options{Step: 7, MinStep: 7, MaxStep: 7})
	ids, err := a.NextN(context.Background(), 30)
	if err != nil {
		t.Fatal(err)
	}
	for i, id := range ids {
		if id != int64(i+1) {
			t.Fatalf("NextN(30) = %v", ids)
		}
	}
	if id, err := a.Next(); err != nil || id != 31 {
		t.Errorf("Next = %d, %v; want 31", id, err)
	}
}

func TestContextCanceled(t *testing.T) {
	f := &flaky{Store: openT(t, sqliteTarget(t)), latency: time.Second}
	a := newT(t, f, "order", segment.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if _, err := a.NextInt64(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("NextInt64 with a store slower than ctx: %v", err)
	}
}

// gated holds every reservation after the first until the test lets it through.
type gated struct {
	segment.Store
	calls   atomic.Int64
	release chan struct{}
}

func (g *gated) Reserve(ctx context.Context, tag string, step int64) (segment.Range, error) {
	if g.calls.Add(1) > 1 {
		<-g.release
	}
	return g.Store.Reserve(ctx, tag, step)
}

// TestNoWaitWhileBuffered: while the next reservation hangs, callers are served from the
// current block without waiting; only when it is used up do they wait, and they get the
// next block as soon as the reservation returns.
func TestNoWaitWhileBuffered(t *testing.T) {
	g := &gated{Store: openT(t, sqliteTarget(t)), release: make(chan struct{})}
	a := newT(t, g, "order", segment.Options{Step: 100, MinStep: 100, MaxStep: 100, Threshold: 0.2})
	ctx := context.Background()
	ids, err := a.NextN(ctx, 100) // the reservation of 101..200 starts and hangs
	if err != nil || ids[99] != 100 {
		t.Fatalf("NextN(100) = ..., %v", err)
	}
	waitFor(t, "the second reservation", func() bool { return g.calls.Load() == 2 })
	if st := a.Stats(); st.Waited != 1 || st.Buffered != 0 {
		t.Fatalf("stats %+v: want 1 wait (the first block) while the second reservation hangs", st)
	}
	got := make(chan int64)
	go func() {
		id, _ := a.NextInt64(ctx)
		got <- id
	}()
	waitFor(t, "the caller to wait", func() bool { return a.Stats().Waited == 2 })
	close(g.release)
	if id := <-got; id != 101 {
		t.Errorf("after the reservation: %d, want 101", id)
	}
}
