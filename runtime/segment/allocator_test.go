package segment_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/idgen/idgen/runtime/segment"
)

// stub is a Store that reserves nothing, for tests that never reach it.
type stub struct{}

func (stub) Reserve(context.Context, string, int64) (segment.Range, error) {
	return segment.Range{}, errors.New("stub: no store")
}

// newT is New for a test, failing it on error.
func newT(t testing.TB, s segment.Store, tag string, opts segment.Options) *segment.Allocator {
	t.Helper()
	a, err := segment.New(s, tag, opts)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestNewInvalid(t *testing.T) {
	s := stub{}
	for _, tc := range []struct {
		name string
		tag  string
		o    segment.Options
	}{
		{"no tag", "", segment.Options{}},
		{"step below min", "x", segment.Options{Step: 5, MinStep: 10}},
		{"step above max", "x", segment.Options{Step: 50, MaxStep: 10}},
		{"negative step", "x", segment.Options{Step: -1}},
		{"threshold 1", "x", segment.Options{Threshold: 1}},
		{"negative threshold", "x", segment.Options{Threshold: -0.1}},
		{"negative target", "x", segment.Options{Target: -time.Second}},
	} {
		if a, err := segment.New(s, tc.tag, tc.o); a != nil || !errors.Is(err, segment.ErrInvalidOptions) {
			t.Errorf("%s: New = %v, %v; want ErrInvalidOptions", tc.name, a, err)
		}
		// CheckOptions applies New's rule to the options alone.
		if err := segment.CheckOptions(tc.o); tc.tag != "" && !errors.Is(err, segment.ErrInvalidOptions) {
			t.Errorf("%s: CheckOptions = %v; want ErrInvalidOptions", tc.name, err)
		}
	}
	for _, o := range []segment.Options{{}, {Step: 10, MinStep: 10, MaxStep: 10}, {MinStep: 2000}, {MaxStep: 10}} {
		if err := segment.CheckOptions(o); err != nil {
			t.Errorf("CheckOptions(%+v) = %v, want nil (New accepts it)", o, err)
		}
		if _, err := segment.New(s, "x", o); err != nil {
			t.Errorf("New(%+v) = %v", o, err)
		}
	}
	if a, err := segment.New(nil, "x", segment.Options{}); a != nil || !errors.Is(err, segment.ErrInvalidOptions) {
		t.Errorf("no store: New = %v, %v; want ErrInvalidOptions", a, err)
	}
	// Defaults fit the bounds given.
	for _, tc := range []struct {
		o                   segment.Options
		step, minS, maxStep int64
	}{
		{segment.Options{}, segment.DefaultStep, segment.DefaultStep, segment.DefaultMaxStep},
		{segment.Options{MaxStep: 100}, 100, 100, 100},
		{segment.Options{MinStep: 5000}, 5000, 5000, segment.DefaultMaxStep},
		{segment.Options{Step: 2_000_000}, 2_000_000, 2_000_000, 2_000_000},
	} {
		o := segment.Resolved(newT(t, s, "x", tc.o))
		if o.Step != tc.step || o.MinStep != tc.minS || o.MaxStep != tc.maxStep {
			t.Errorf("newT(t, %+v): step %d in [%d, %d], want %d in [%d, %d]", tc.o, o.Step, o.MinStep, o.MaxStep, tc.step, tc.minS, tc.maxStep)
		}
	}
}

// memStore is a Store in memory: counters per tag, and a failure to return while fail
// is set. Safe for concurrent use.
type memStore struct {
	mu    sync.Mutex
	max   map[string]int64
	fail  error
	steps []int64 // the step of every Reserve, in order
	// entered, when set, hears each Reserve start, which then waits for hold to close.
	entered chan struct{}
	hold    chan struct{}
}

func (m *memStore) Reserve(_ context.Context, tag string, step int64) (segment.Range, error) {
	m.mu.Lock()
	entered, hold := m.entered, m.hold
	m.mu.Unlock()
	if entered != nil {
		entered <- struct{}{}
		<-hold
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.steps = append(m.steps, step)
	if m.fail != nil {
		return segment.Range{}, m.fail
	}
	if m.max == nil {
		m.max = map[string]int64{}
	}
	m.max[tag] += step
	return segment.Range{First: m.max[tag] - step + 1, Last: m.max[tag]}, nil
}

func (m *memStore) setFail(err error) {
	m.mu.Lock()
	m.fail = err
	m.mu.Unlock()
}

// waitStats polls a's Stats until ok accepts them, for the reservation running in the
// background.
func waitStats(t *testing.T, a *segment.Allocator, what string, ok func(segment.Stats) bool) segment.Stats {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		st := a.Stats()
		if ok(st) {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: stats %+v", what, st)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestStatsHalves: Stats tells the two halves of the double buffer apart, and Buffered
// is their sum.
func TestStatsHalves(t *testing.T) {
	ctx := context.Background()
	a := newT(t, &memStore{}, "x", segment.Options{Step: 100, MaxStep: 100, Threshold: 0.5})
	if st := a.Stats(); st.Current != 0 || st.CurrentSize != 0 || st.Next != 0 || st.Buffered != 0 {
		t.Fatalf("new Allocator: %+v", st)
	}
	if _, err := a.NextN(ctx, 10); err != nil {
		t.Fatal(err)
	}
	if st := a.Stats(); st.Current != 90 || st.CurrentSize != 100 || st.Next != 0 || st.Buffered != 90 {
		t.Fatalf("after 10 IDs: %+v", st)
	}
	// Past the threshold the next block is reserved in the background.
	if _, err := a.NextN(ctx, 45); err != nil {
		t.Fatal(err)
	}
	st := waitStats(t, a, "next block reserved", func(s segment.Stats) bool { return s.Next == 100 })
	if st.Current != 45 || st.CurrentSize != 100 || st.Buffered != 145 {
		t.Fatalf("after 55 IDs: %+v", st)
	}
	// Draining the current block makes the next one current.
	if _, err := a.NextN(ctx, 46); err != nil {
		t.Fatal(err)
	}
	if st := a.Stats(); st.Current != 99 || st.CurrentSize != 100 || st.Buffered != st.Current+st.Next {
		t.Fatalf("after 101 IDs: %+v", st)
	}
}

// TestHistory: every reservation is kept, oldest first, with its step and error, and the
// ring keeps the latest HistoryLen. Each step waits for the reservations it starts, so
// that none is running when the next step begins.
func TestHistory(t *testing.T) {
	ctx := context.Background()
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	advance := func() { mu.Lock(); clock = clock.Add(time.Minute); mu.Unlock() } // past Retry
	s := &memStore{}
	a := newT(t, s, "x", segment.Options{Step: 10, MaxStep: 1 << 40, Threshold: 0.99, Target: time.Hour, Now: now})
	if h := a.History(); len(h) != 0 {
		t.Fatalf("History of a new Allocator: %v", h)
	}
	// Blocks drained at once: draining each block reserves the next in the background, and
	// the step doubles with each reservation. A block that lands after the current one ran
	// out becomes current, not Next, so the wait is on Reserved.
	for i := range 3 {
		if _, err := a.NextN(ctx, int(10<<i)); err != nil {
			t.Fatal(err)
		}
		st := waitStats(t, a, "prefetch", func(st segment.Stats) bool { return st.Reserved == int64(i+2) })
		if st.Current != 20<<i || st.CurrentSize != 20<<i || st.Next != 0 || st.Waited != 1 {
			t.Fatalf("after block %d drained: %+v, want a current block of %d and only the first reservation waited for", i, st, 20<<i)
		}
	}
	h := a.History()
	if len(h) != 4 || h[0].Step != 10 || h[1].Step != 20 || h[2].Step != 40 || h[3].Step != 80 || h[0].Err != nil || h[3].Err != nil || !h[0].At.Equal(clock) {
		t.Fatalf("History = %+v, want steps 10, 20, 40, 80 without errors", h)
	}
	// The store fails: draining the buffer reserves in the background, which fails, and
	// then nothing is left.
	boom := errors.New("boom")
	s.setFail(boom)
	advance()
	for a.Stats().Buffered > 0 {
		if _, err := a.NextInt64(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := a.NextInt64(ctx); !errors.Is(err, segment.ErrUnavailable) {
		t.Fatalf("store down, nothing buffered: %v", err)
	}
	h = a.History()
	if last := h[len(h)-1]; a.Stats().Failed != 1 || len(h) != 5 || !errors.Is(last.Err, boom) || last.Step != 160 {
		t.Fatalf("History = %+v, want it to end with the failure of step 160", h)
	}
	if st := a.Stats(); !errors.Is(st.Err, boom) {
		t.Fatalf("Stats().Err = %v after the failure, want boom", st.Err)
	}
	// The ring keeps the latest HistoryLen, oldest first. Each round asks the store for the
	// step set, 1, and draining that block reserves one of 2 in the background.
	s.setFail(nil)
	for range segment.HistoryLen {
		advance()
		if err := a.SetStep(1); err != nil {
			t.Fatal(err)
		}
		st := a.Stats()
		if _, err := a.NextN(ctx, int(st.Buffered)+1); err != nil {
			t.Fatal(err)
		}
		waitStats(t, a, "prefetch of the round", func(s segment.Stats) bool { return s.Reserved == st.Reserved+2 })
	}
	if st := a.Stats(); st.Err != nil {
		t.Fatalf("Stats().Err = %v after successes, want nil", st.Err)
	}
	h = a.History()
	if len(h) != segment.HistoryLen {
		t.Fatalf("History has %d, want %d", len(h), segment.HistoryLen)
	}
	for i := range h {
		if want := int64(1 + i%2); h[i].Step != want || h[i].Err != nil {
			t.Fatalf("History[%d] = %+v, want step %d without error", i, h[i], want)
		}
		if i > 0 && h[i].At.Before(h[i-1].At) {
			t.Fatalf("History not oldest first at %d: %v then %v", i, h[i-1].At, h[i].At)
		}
	}
}

// TestSetStep: the next reservation asks for the step set, the bounds widen to take it
// in, the step adapts from there, and a failed reservation does not undo it.
func TestSetStep(t *testing.T) {
	ctx := context.Background()
	s := &memStore{}
	a := newT(t, s, "x", segment.Options{Step: 100, MaxStep: 1000, Threshold: 0.5, Target: time.Hour})
	if err := a.SetStep(0); !errors.Is(err, segment.ErrInvalidOptions) {
		t.Fatalf("SetStep(0) = %v, want ErrInvalidOptions", err)
	}
	if _, err := a.NextInt64(ctx); err != nil {
		t.Fatal(err)
	}
	if err := a.SetStep(5000); err != nil {
		t.Fatal(err)
	}
	// The current block [1, 100] reserves the next one past half: with the step set.
	if _, err := a.NextN(ctx, 60); err != nil {
		t.Fatal(err)
	}
	waitStats(t, a, "next block", func(st segment.Stats) bool { return st.Next > 0 })
	if st := a.Stats(); st.Next != 5000 || st.Step != 5000 {
		t.Fatalf("after SetStep(5000): %+v, want a next block of 5000", st)
	}
	if o := segment.Resolved(a); o.MinStep != 100 || o.MaxStep != 5000 {
		t.Fatalf("bounds after SetStep(5000): [%d, %d], want [100, 5000]", o.MinStep, o.MaxStep)
	}
	if err := a.SetStep(7); err != nil {
		t.Fatal(err)
	}
	if o := segment.Resolved(a); o.MinStep != 7 || o.MaxStep != 5000 {
		t.Fatalf("bounds after SetStep(7): [%d, %d], want [7, 5000]", o.MinStep, o.MaxStep)
	}
	// SetStep while a reservation runs, which then fails: the step set stays.
	entered, hold := make(chan struct{}), make(chan struct{})
	s.mu.Lock()
	s.fail, s.entered, s.hold = errors.New("down"), entered, hold
	s.mu.Unlock()
	if _, err := a.NextN(ctx, 40+2500); err != nil {
		t.Fatal(err)
	}
	<-entered
	if err := a.SetStep(9); err != nil {
		t.Fatal(err)
	}
	close(hold)
	waitStats(t, a, "failed reservation", func(st segment.Stats) bool { return st.Failed == 1 })
	if st := a.Stats(); st.Step != 9 {
		t.Fatalf("step after SetStep(9) during a reservation that failed: %d", st.Step)
	}
	s.mu.Lock()
	steps := append([]int64(nil), s.steps...)
	s.mu.Unlock()
	if want := []int64{100, 5000, 7}; !slices.Equal(steps, want) {
		t.Fatalf("steps asked of the store %v, want %v", steps, want)
	}
}
