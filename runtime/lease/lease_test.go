package lease_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idgen/idgen/runtime/lease"
	"github.com/idgen/idgen/runtime/snowflake"
)

// mem is an in-memory Backend for testing a Lease: the store's clock is the test's, and
// a test can make renewals fail or hand an ID to someone else.
type mem struct {
	mu       sync.Mutex
	now      func() time.Time // the store's clock
	rows     map[int64]*memRow
	failNext atomic.Int32 // renewals to fail with errDown
	down     atomic.Bool  // every renewal fails with errDown
	renews   atomic.Int32
}

type memRow struct {
	holder       string
	expires      time.Time
	last, prevEx time.Time
}

var errDown = errors.New("store unreachable")

func newMem() *mem { return &mem{now: time.Now, rows: map[int64]*memRow{}} }

// newUsedMem returns a mem whose worker IDs 0 to n-1 were leased and released an hour ago,
// so that claims of them are not fresh and issue at once.
func newUsedMem(n int) *mem {
	m := newMem()
	for w := range int64(n) {
		m.rows[w] = &memRow{holder: "gone", expires: time.Now().Add(-time.Hour)}
	}
	return m
}

func (m *mem) Acquire(_ context.Context, max int64, token string, ttl time.Duration) (lease.Claim, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	for w := int64(0); w <= max; w++ {
		r := m.rows[w]
		if r == nil {
			m.rows[w] = &memRow{holder: token, expires: now.Add(ttl)}
			return lease.Claim{Worker: w, Fresh: true, Expires: now.Add(ttl)}, nil
		}
		if !r.expires.After(now) {
			c := lease.Claim{Worker: w, Last: r.last, Prev: r.expires, Expires: now.Add(ttl)}
			r.holder, r.expires, r.prevEx = token, now.Add(ttl), r.expires
			return c, nil
		}
	}
	return lease.Claim{}, &lease.AllTakenError{Max: max}
}

func (m *mem) Renew(_ context.Context, w int64, token string, ttl time.Duration, last time.Time) error {
	m.renews.Add(1)
	if m.down.Load() {
		return errDown
	}
	if n := m.failNext.Load(); n > 0 && m.failNext.CompareAndSwap(n, n-1) {
		return errDown
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	r := m.rows[w]
	switch {
	case r == nil:
		return &lease.LostError{Worker: w}
	case r.holder != token:
		return &lease.LostError{Worker: w, Taken: true}
	case !r.expires.After(now):
		return &lease.LostError{Worker: w, Expired: r.expires}
	}
	r.expires = now.Add(ttl)
	if last.After(r.last) {
		r.last = last
	}
	return nil
}

func (m *mem) Release(_ context.Context, w int64, token string, last time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.rows[w]
	if r == nil || r.holder != token {
		return &lease.LostError{Worker: w, Taken: r != nil}
	}
	if now := m.now(); r.expires.After(now) {
		r.expires = now
	}
	if last.After(r.last) {
		r.last = last
	}
	return nil
}

// forget drops every record, as a Redis restarted without persistence does.
func (m *mem) forget() {
	m.mu.Lock()
	defer m.mu.Unlock()
	clear(m.rows)
}

// steal hands w to another holder for d, as if its lease had expired and been claimed.
func (m *mem) steal(w int64, d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.rows[w].holder, m.rows[w].expires = "thief", time.Now().Add(d)
}

func (m *mem) row(w int64) memRow {
	m.mu.Lock()
	defer m.mu.Unlock()
	return *m.rows[w]
}

// events collects a Lease's events for a test.
type events struct {
	mu  sync.Mutex
	all []lease.Event
	ch  chan lease.Event
}

func newEvents() *events { return &events{ch: make(chan lease.Event, 1000)} }

func (e *events) add(ev lease.Event) {
	e.mu.Lock()
	e.all = append(e.all, ev)
	e.mu.Unlock()
	select {
	case e.ch <- ev:
	default: // nobody waits for these: never block the Lease
	}
}

// deadline returns the latest deadline an Acquired or Renewed event has announced.
func (e *events) deadline() time.Time {
	e.mu.Lock()
	defer e.mu.Unlock()
	var d time.Time
	for _, ev := range e.all {
		if (ev.Kind == lease.Acquired || ev.Kind == lease.Renewed) && ev.Deadline.After(d) {
			d = ev.Deadline
		}
	}
	return d
}

// wait returns the next event of kind k, failing the test after timeout.
func (e *events) wait(t *testing.T, k lease.EventKind, timeout time.Duration) lease.Event {
	t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case ev := <-e.ch:
			if ev.Kind == k {
				return ev
			}
		case <-deadline:
			t.Fatalf("no %v event within %v", k, timeout)
		}
	}
}

func testConfig(ev *events) lease.Config {
	return lease.Config{Layout: snowflake.Classic(), MaxWorker: 7, TTL: 300 * time.Millisecond, OnEvent: ev.add}
}

func TestLeaseIssuesAndReleases(t *testing.T) {
	ctx := context.Background()
	m, ev := newMem(), newEvents()
	l, err := lease.Acquire(ctx, m, testConfig(ev))
	if err != nil {
		t.Fatal(err)
	}
	a := ev.wait(t, lease.Acquired, time.Second)
	// The store is new: the first claim issues nothing until the end of its lease (no
	// drift, no skew), by when any holder a store that forgot could have had has stopped.
	if end := m.row(0).expires; a.Worker != 0 || !a.Fresh || !a.After.Equal(end) {
		t.Errorf("first acquisition %+v, want worker 0, fresh, to start after the lease's end %v", a, end)
	}
	if w, err := l.WorkerID(ctx); w != 0 || err != nil {
		t.Errorf("WorkerID = %d, %v", w, err)
	}

	// Eight goroutines across several renewals: every ID unique and of worker 0.
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		seen = map[snowflake.ID]bool{}
		last snowflake.ID
	)
	stop := time.Now().Add(700 * time.Millisecond)
	for range 8 {
		wg.Go(func() {
			for ; time.Now().Before(stop); time.Sleep(time.Millisecond) {
				ids, err := l.NextN(ctx, 10)
				if err != nil {
					t.Error(err)
					return
				}
				id, err := l.Next()
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				for _, id := range append(ids, id) {
					if seen[id] {
						t.Errorf("duplicate %d", id)
					}
					seen[id] = true
					last = max(last, id)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if m.renews.Load() < 2 {
		t.Errorf("%d renewals in 700ms with a 300ms TTL, want at least 2", m.renews.Load())
	}
	for id := range seen {
		if p, _ := snowflake.Classic().Decode(id); p.Worker != 0 {
			t.Fatalf("ID %d of worker %d", id, p.Worker)
		}
	}

	if err := l.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(ctx); err != nil {
		t.Errorf("second Close: %v", err)
	}
	ev.wait(t, lease.Released, time.Second)
	lastTime, _ := snowflake.Classic().Time(last)
	if r := m.row(0); r.last.Before(lastTime) || r.expires.After(time.Now()) {
		t.Errorf("after Close the store has last %v (last ID at %v) and expiry %v", r.last, lastTime, r.expires)
	}
	_, err = l.Next()
	var nh *lease.NotHeldError
	if !errors.As(err, &nh) || !errors.Is(err, lease.ErrNotHeld) || !errors.Is(err, snowflake.ErrGateClosed) || !errors.Is(err, lease.ErrClosed) {
		t.Fatalf("Next after Close: %v", err)
	}
	if got, want := err.Error(), "lease: worker ID 0 not held: lease: closed"; got != want {
		t.Errorf("error = %q, want %q", got, want)
	}
	if _, err := l.WorkerID(ctx); !errors.Is(err, lease.ErrNotHeld) {
		t.Errorf("WorkerID after Close: %v", err)
	}

	// The next holder of worker 0 starts after the last ID.
	l2, err := lease.Acquire(ctx, m, testConfig(ev))
	if err != nil {
		t.Fatal(err)
	}
	defer l2.Close(ctx)
	id, err := l2.Next()
	if err != nil {
		t.Fatal(err)
	}
	if id <= last {
		t.Errorf("next holder issued %d, not after the previous holder's %d", id, last)
	}
}

// TestGateClosesBeforeExpiry: with the store unreachable, the generator stops at its
// deadline, before the lease can expire, judged from the start of the last successful
// renewal: its last ID is stamped before the deadline, and it refuses from then on.
func TestGateClosesBeforeExpiry(t *testing.T) {
	ctx := context.Background()
	m, ev := newUsedMem(8), newEvents()
	cfg := testConfig(ev)
	cfg.Margin = 100 * time.Millisecond
	l, err := lease.Acquire(ctx, m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close(ctx)
	ev.wait(t, lease.Renewed, time.Second)
	m.down.Store(true)
	var (
		first time.Time
		last  snowflake.ID
	)
	for {
		id, err := l.Next()
		if err != nil {
			first = time.Now()
			if !errors.Is(err, lease.ErrNotHeld) || err.Error() != "lease: worker ID 0 not held: renewal overdue" {
				t.Fatalf("err = %v", err)
			}
			break
		}
		last = id
		time.Sleep(time.Millisecond)
	}
	// The deadline is the start of the last successful renewal plus TTL minus Margin;
	// the store keeps the lease until at least that start plus TTL. What keeps the next
	// holder's IDs apart is the stamp: the last ID's is before the deadline.
	d := ev.deadline()
	if made, _ := cfg.Layout.Time(last); !made.Before(d) {
		t.Errorf("last ID stamped %v, not before the deadline %v", made, d)
	}
	if first.Before(d) {
		t.Errorf("stopped %v before the deadline", d.Sub(first))
	}
	if _, err := l.Next(); !errors.Is(err, lease.ErrNotHeld) {
		t.Errorf("Next after the first refusal: %v", err)
	}
	ev.wait(t, lease.RenewFailed, time.Second)

	// The store comes back before anyone takes the ID: the lease was never lost, the
	// next renewal reopens the same generator.
	m.down.Store(false)
	ev.wait(t, lease.Renewed, time.Second)
	if _, err := l.Next(); err != nil {
		t.Fatalf("Next after the store came back: %v", err)
	}
}

// TestLostReacquires: a lease taken over by another holder is lost; the Lease claims the
// lowest free ID, possibly another, with a new generator, and only then issues again.
func TestLostReacquires(t *testing.T) {
	ctx := context.Background()
	m, ev := newUsedMem(8), newEvents()
	other, err := lease.Acquire(ctx, m, testConfig(newEvents()))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close(ctx)
	l, err := lease.Acquire(ctx, m, testConfig(ev))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close(ctx)
	if w, _ := l.WorkerID(ctx); w != 1 {
		t.Fatalf("worker %d, want 1", w)
	}

	// Issue from four goroutines throughout, as a service would.
	var (
		wg      sync.WaitGroup
		stop    atomic.Bool
		mu      sync.Mutex
		byW     = map[int64]int{}
		notHeld atomic.Int32
	)
	for range 4 {
		wg.Go(func() {
			for !stop.Load() {
				id, err := l.Next()
				if err != nil {
					var nh *lease.NotHeldError
					if !errors.As(err, &nh) {
						t.Error(err)
						return
					}
					notHeld.Add(1)
					time.Sleep(time.Millisecond)
					continue
				}
				p, _ := snowflake.Classic().Decode(id)
				mu.Lock()
				byW[p.Worker]++
				mu.Unlock()
			}
		})
	}
	issuedBy := func(w int64) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
			mu.Lock()
			n := byW[w]
			mu.Unlock()
			if n > 0 {
				return
			}
			if time.Now().After(deadline) {
				stop.Store(true)
				wg.Wait()
				t.Fatalf("no ID of worker %d within 10 s", w)
			}
		}
	}
	issuedBy(1)
	m.steal(1, time.Hour)
	lost := ev.wait(t, lease.Lost, time.Second)
	if !errors.Is(lost.Err, lease.ErrLost) || lost.Worker != 1 {
		t.Errorf("lost event %+v", lost)
	}
	a := ev.wait(t, lease.Acquired, time.Second)
	if a.Worker != 2 {
		t.Errorf("reacquired worker %d, want 2 (0 and 1 are held)", a.Worker)
	}
	issuedBy(2)
	stop.Store(true)
	wg.Wait()
	if byW[1] == 0 || byW[2] == 0 || len(byW) != 2 {
		t.Errorf("IDs by worker %v, want some of 1 then some of 2", byW)
	}
	if w, err := l.WorkerID(ctx); w != 2 || err != nil {
		t.Errorf("WorkerID = %d, %v", w, err)
	}
}

// TestAfter: a new holder starts after what its predecessors recorded, and after the end
// of the previous lease plus the drift its own policies allow.
func TestAfter(t *testing.T) {
	ctx := context.Background()
	now := time.Now()
	for _, tc := range []struct {
		name      string
		last, end time.Time
		opts      snowflake.Options
		skew      time.Duration
		want      time.Time
	}{
		{"recorded tick", now.Add(300 * time.Millisecond), now.Add(-time.Second), snowflake.Options{}, 0, now.Add(300 * time.Millisecond)},
		{"end of lease, no drift", now.Add(-2 * time.Second), now.Add(-time.Second), snowflake.Options{}, 0, now.Add(-time.Second)},
		{"end of lease plus skew", time.Time{}, now, snowflake.Options{}, 300 * time.Millisecond, now.Add(300 * time.Millisecond)},
		{"borrow drift", time.Time{}, now, snowflake.Options{Exhaust: snowflake.ExhaustBorrow, MaxDrift: 200 * time.Millisecond}, 0, now.Add(200 * time.Millisecond)},
		{"logical default drift", time.Time{}, now, snowflake.Options{Rollback: snowflake.RollbackLogical}, 0, now.Add(snowflake.DefaultMaxDrift)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, ev := newMem(), newEvents()
			m.rows[0] = &memRow{holder: "old", expires: tc.end, last: tc.last}
			cfg := testConfig(ev)
			// A TTL whose deadlines lead the clock by more than the default drift.
			cfg.TTL = 3 * time.Second
			cfg.Options, cfg.Skew = tc.opts, tc.skew
			cfg.Options.MaxWait = 5 * time.Second
			l, err := lease.Acquire(ctx, m, cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close(ctx)
			a := ev.wait(t, lease.Acquired, time.Second)
			if !a.After.Equal(tc.want) {
				t.Errorf("After = %v, want %v", a.After, tc.want)
			}
			id, err := l.Next()
			if err != nil {
				t.Fatal(err)
			}
			layout := snowflake.Classic()
			if got, _ := layout.Decode(id); got.Tick <= layout.Tick(tc.want) {
				t.Errorf("first ID in tick %d, want after %d", got.Tick, layout.Tick(tc.want))
			}
		})
	}
}

// TestRollbackFailReported: a clock behind the recorded tick under RollbackFail is the
// generator's typed error, not a NotHeldError: the lease is held.
func TestRollbackFailReported(t *testing.T) {
	ctx := context.Background()
	m := newMem()
	m.rows[0] = &memRow{holder: "old", expires: time.Now().Add(-time.Second), last: time.Now().Add(time.Hour)}
	cfg := testConfig(newEvents())
	cfg.Options.Rollback = snowflake.RollbackFail
	l, err := lease.Acquire(ctx, m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close(ctx)
	_, err = l.Next()
	var cb *snowflake.ClockBehindError
	if !errors.As(err, &cb) || errors.Is(err, lease.ErrNotHeld) || cb.Behind < 59*time.Minute {
		t.Errorf("err = %v, want a ClockBehindError of about an hour", err)
	}
}

func TestAllTaken(t *testing.T) {
	ctx := context.Background()
	m := newMem()
	cfg := testConfig(newEvents())
	cfg.MaxWorker = 1
	for range 2 {
		l, err := lease.Acquire(ctx, m, cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close(ctx)
	}
	_, err := lease.Acquire(ctx, m, cfg)
	var all *lease.AllTakenError
	if !errors.As(err, &all) || all.Max != 1 {
		t.Errorf("third Acquire in [0, 1]: %v", err)
	}
}

func TestConfigErrors(t *testing.T) {
	bad := snowflake.Classic()
	bad.TimeBits = 50
	for _, tc := range []struct {
		name string
		cfg  lease.Config
		b    lease.Backend
	}{
		{"nil backend", lease.Config{Layout: snowflake.Classic()}, nil},
		{"bad layout", lease.Config{Layout: bad}, newMem()},
		{"gate set", lease.Config{Layout: snowflake.Classic(), Options: snowflake.Options{Gate: new(snowflake.Gate)}}, newMem()},
		{"after set", lease.Config{Layout: snowflake.Classic(), Options: snowflake.Options{After: time.Now()}}, newMem()},
		{"max worker too big", lease.Config{Layout: snowflake.Classic(), MaxWorker: 1024}, newMem()},
		{"max worker negative", lease.Config{Layout: snowflake.Classic(), MaxWorker: -1}, newMem()},
		{"min worker above max", lease.Config{Layout: snowflake.Classic(), MinWorker: 9, MaxWorker: 8}, newMem()},
		{"min worker negative", lease.Config{Layout: snowflake.Classic(), MinWorker: -1}, newMem()},
		{"min worker on a backend without ranges", lease.Config{Layout: snowflake.Classic(), MinWorker: 512}, newMem()},
		{"ttl too short", lease.Config{Layout: snowflake.Classic(), TTL: time.Millisecond}, newMem()},
		{"margin too big", lease.Config{Layout: snowflake.Classic(), TTL: time.Second, Margin: 600 * time.Millisecond}, newMem()},
		{"negative skew", lease.Config{Layout: snowflake.Classic(), Skew: -time.Second}, newMem()},
		// Deadlines as little as TTL - TTL/3 - Margin = 570 ms ahead of the clock.
		{"drift beyond the deadline", lease.Config{Layout: snowflake.Classic(), TTL: time.Second,
			Options: snowflake.Options{Rollback: snowflake.RollbackLogical}}, newMem()},
		{"drift plus skew beyond the deadline", lease.Config{Layout: snowflake.Classic(), TTL: time.Second, Skew: 300 * time.Millisecond,
			Options: snowflake.Options{Exhaust: snowflake.ExhaustBorrow, MaxDrift: 300 * time.Millisecond}}, newMem()},
	} {
		if l, err := lease.Acquire(context.Background(), tc.b, tc.cfg); err == nil {
			l.Close(context.Background())
			t.Errorf("%s: no error", tc.name)
		}
	}
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		err  error
		is   []error
		text string
	}{
		{&lease.NotHeldError{Worker: -1}, []error{lease.ErrNotHeld, snowflake.ErrGateClosed}, "lease: no worker ID held: renewal overdue"},
		{&lease.NotHeldError{Worker: 4, Err: &lease.LostError{Worker: 4, Taken: true}}, []error{lease.ErrNotHeld, lease.ErrLost}, "lease: worker ID 4 not held: lease: worker ID 4 lost: held by another holder"},
		{&lease.LostError{Worker: 2}, []error{lease.ErrLost}, "lease: worker ID 2 lost: no lease recorded"},
		{&lease.LostError{Worker: 2, Expired: time.UnixMilli(1500).UTC()}, []error{lease.ErrLost}, "lease: worker ID 2 lost: expired at 1970-01-01T00:00:01.5Z"},
		{&lease.AllTakenError{Max: 3}, []error{lease.ErrAllTaken}, "lease: every worker ID in [0, 3] is held"},
	} {
		if tc.err.Error() != tc.text {
			t.Errorf("Error() = %q, want %q", tc.err.Error(), tc.text)
		}
		for _, target := range tc.is {
			if !errors.Is(fmt.Errorf("wrapped: %w", tc.err), target) {
				t.Errorf("%v does not match %v", tc.err, target)
			}
		}
	}
	for k := lease.Acquired; k <= lease.Released+1; k++ {
		if k.String() == "" {
			t.Errorf("EventKind(%d) has no name", k)
		}
	}
}
