package leasetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idgen/idgen/runtime/lease"
	"github.com/idgen/idgen/runtime/snowflake"
)

// Suite describes a lease.Backend to RunBackend.
type Suite struct {
	// Open returns the backend on an empty namespace of its own (a table or key prefix no
	// other call uses), closing what it opened when t ends. RunBackend calls it once per
	// subtest.
	Open func(t *testing.T) lease.Backend
	// MinTTL is the shortest TTL the store keeps exactly enough for the expiry step: 20 ms
	// if zero. A store that counts whole seconds (etcd) sets a second.
	MinTTL time.Duration
	// Expired waits until the store has ended worker's lease of MinTTL, claimed by the
	// test under b. Nil waits three times MinTTL; a store that ends leases on its own
	// schedule (etcd deletes the key) waits for that instead.
	Expired func(t *testing.T, b lease.Backend, worker int64)
	// Skew bounds how far the store's clock may be from the test's, for the times a
	// Claim reports (Expires, Prev): 50 ms if zero, for a store on the same machine.
	Skew time.Duration
	// Range says the backend claims within a range of worker IDs (lease.RangeBackend):
	// the "range" subtest then fails unless it is one. Without it a backend that is one
	// is still checked as one, and one that is not must be refused a Config.MinWorker.
	Range bool
}

// RunBackend runs the contract every lease.Backend keeps against the backends s.Open
// returns, as subtests of t:
//
//   - "contract": Acquire claims the lowest free worker ID in [0, max], fresh and with no
//     history, Expires one TTL after the claim in the store's clock, and fails with an
//     *lease.AllTakenError naming max when all are held (and for a negative max); Renew
//     holds only under the holder's token and before expiry, else a *lease.LostError
//     (Taken when another token holds the ID, Expired when the lease ran out); the
//     recorded tick never goes back, survives release, and is kept in whole milliseconds
//     rounded up (package millis: a tick of 5,000.3 ms reads back as 5,001 ms, never
//     5,000); a released or expired ID is claimed again, not fresh, with its end as Prev;
//     a release by a replaced holder is a *lease.LostError, a second release by the same
//     holder is not.
//   - "concurrent": 16 claimers racing for 12 IDs: each ID goes to exactly one, the others
//     get lease.ErrAllTaken.
//   - "dense": a released ID in the middle is claimed before the gap above the highest.
//   - "range", for a lease.RangeBackend (required with Suite.Range): AcquireRange claims
//     the lowest free ID in [min, max], never one below min that an old fleet's Acquire
//     would take, fails with an *lease.AllTakenError naming min and max when all are held
//     and refuses an empty range; claimers racing AcquireRange beside claimers racing
//     Acquire below min each get one ID of their own range; a Lease with MinWorker
//     leases min. A backend that is not one must be refused a MinWorker by lease.Acquire.
//
// runtime/lease's SQL backends, plugins/redis/redislease and plugins/etcdlease run it; a
// Backend for another store passes it before Processes runs a fleet on it.
func RunBackend(t *testing.T, s Suite) {
	if s.MinTTL == 0 {
		s.MinTTL = 20 * time.Millisecond
	}
	if s.Skew == 0 {
		s.Skew = 50 * time.Millisecond
	}
	if s.Expired == nil {
		s.Expired = func(t *testing.T, _ lease.Backend, _ int64) { time.Sleep(3 * s.MinTTL) }
	}
	t.Run("contract", func(t *testing.T) { contract(t, s, s.Open(t)) })
	t.Run("concurrent", func(t *testing.T) { concurrentAcquire(t, s.Open(t)) })
	t.Run("dense", func(t *testing.T) { lowestFree(t, s.Open(t)) })
	t.Run("range", func(t *testing.T) {
		b := s.Open(t)
		rb, ok := b.(lease.RangeBackend)
		if !ok && s.Range {
			t.Fatalf("%T is not a lease.RangeBackend: it has no AcquireRange(ctx, min, max, token, ttl)", b)
		}
		if !ok {
			// It leases from 0 up: a Lease refuses a MinWorker on it.
			_, err := lease.Acquire(context.Background(), b, lease.Config{Layout: snowflake.Classic(), MinWorker: 8})
			if err == nil || !strings.Contains(err.Error(), "lease: MinWorker 8 needs a backend that claims within a range") {
				t.Fatalf("MinWorker on %T: %v", b, err)
			}
			return
		}
		workerRange(t, rb)
	})
	if s.Range {
		t.Run("concurrent range", func(t *testing.T) {
			if rb, ok := s.Open(t).(lease.RangeBackend); ok {
				concurrentRange(t, rb)
			}
		})
	}
}

func contract(t *testing.T, s Suite, b lease.Backend) {
	ctx := context.Background()
	const ttl = time.Minute
	tokens := []string{lease.NewToken(), lease.NewToken(), lease.NewToken()}
	for i, tok := range tokens {
		before := time.Now()
		c, err := b.Acquire(ctx, 2, tok, ttl)
		if err != nil {
			t.Fatalf("acquire %d: %v", i, err)
		}
		// Expires is the store's clock plus the TTL.
		if d := c.Expires.Sub(before.Add(ttl)); d < -s.Skew || d > 5*time.Second {
			t.Errorf("acquire %d: Expires %v, %v after the claim began plus the TTL", i, c.Expires, d)
		}
		if c != (lease.Claim{Worker: int64(i), Fresh: true, Expires: c.Expires}) {
			t.Errorf("acquire %d = %+v, want worker %d, fresh, with no history", i, c, i)
		}
	}

	_, err := b.Acquire(ctx, 2, lease.NewToken(), ttl)
	var all *lease.AllTakenError
	if !errors.Is(err, lease.ErrAllTaken) || !errors.As(err, &all) || all.Max != 2 {
		t.Fatalf("acquire with every ID held: err = %v, want *AllTakenError{Max: 2}", err)
	}
	if got, want := err.Error(), "lease: every worker ID in [0, 2] is held"; got != want {
		t.Errorf("error = %q, want %q", got, want)
	}

	// Renewal holds only under the holder's token.
	t1 := time.UnixMilli(time.Now().UnixMilli() + 5000)
	if err := b.Renew(ctx, 1, tokens[1], ttl, t1); err != nil {
		t.Fatalf("renew by the holder: %v", err)
	}
	wantLost(t, "renew with another holder's token", b.Renew(ctx, 1, tokens[0], ttl, t1), 1, true)
	wantLost(t, "renew of an ID never leased", b.Renew(ctx, 7, tokens[0], ttl, t1), 7, false)

	// The recorded tick never goes back, a part of a millisecond rounds up, and a
	// release keeps it.
	if err := b.Renew(ctx, 1, tokens[1], ttl, t1.Add(-time.Second)); err != nil {
		t.Fatal(err)
	}
	if err := b.Renew(ctx, 1, tokens[1], ttl, t1.Add(300*time.Microsecond)); err != nil {
		t.Fatal(err)
	}
	last := t1.Add(time.Millisecond)
	before := time.Now()
	if err := b.Release(ctx, 1, tokens[1], time.Time{}); err != nil {
		t.Fatalf("release: %v", err)
	}
	if err := b.Release(ctx, 1, tokens[1], time.Time{}); err != nil {
		t.Errorf("second release by the same holder: %v", err)
	}
	c, err := b.Acquire(ctx, 2, lease.NewToken(), ttl)
	if err != nil {
		t.Fatal(err)
	}
	if c.Worker != 1 || !c.Last.Equal(last) || c.Fresh {
		t.Errorf("acquire after release = %+v, want worker 1, last %v (5,000.3 ms rounded up), not fresh", c, last)
	}
	// Prev is the release, in the store's clock.
	if d := c.Prev.Sub(before); d < -s.Skew || d > 5*time.Second {
		t.Errorf("acquire after release: Prev %v, %v after the release began", c.Prev, d)
	}
	wantLost(t, "release by the replaced holder", b.Release(ctx, 1, tokens[1], t1), 1, true)

	// A lease that expired cannot be renewed, and is claimed with its end as Prev.
	if err := b.Release(ctx, 2, tokens[2], time.Time{}); err != nil {
		t.Fatal(err)
	}
	short := lease.NewToken()
	if c, err := b.Acquire(ctx, 2, short, s.MinTTL); err != nil || c.Worker != 2 {
		t.Fatalf("acquire for %v = %+v, %v; want worker 2", s.MinTTL, c, err)
	}
	s.Expired(t, b, 2)
	err = b.Renew(ctx, 2, short, ttl, time.Time{})
	var lost *lease.LostError
	if !errors.As(err, &lost) || lost.Taken || lost.Expired.IsZero() || !errors.Is(err, lease.ErrLost) {
		t.Fatalf("renew after expiry: err = %v, want *LostError with Expired", err)
	}
	if !strings.Contains(err.Error(), "lease: worker ID 2 lost: expired at ") {
		t.Errorf("error = %q", err)
	}
	c, err = b.Acquire(ctx, 2, lease.NewToken(), ttl)
	if err != nil {
		t.Fatal(err)
	}
	if c.Worker != 2 || !c.Prev.Equal(lost.Expired) || c.Fresh {
		t.Errorf("acquire of the expired ID = %+v, want worker 2, Prev %v, not fresh", c, lost.Expired)
	}
	// The holder whose lease expired may no longer release it.
	wantLost(t, "release after the ID was taken over", b.Release(ctx, 2, short, time.Time{}), 2, true)

	// A smaller max sees a smaller range.
	if _, err := b.Acquire(ctx, 0, lease.NewToken(), ttl); !errors.Is(err, lease.ErrAllTaken) {
		t.Errorf("acquire in [0, 0]: err = %v, want ErrAllTaken", err)
	}
	if _, err := b.Acquire(ctx, -1, lease.NewToken(), ttl); err == nil {
		t.Error("acquire with a negative max succeeded")
	}
}

func wantLost(t *testing.T, what string, err error, worker int64, taken bool) {
	t.Helper()
	var lost *lease.LostError
	if !errors.As(err, &lost) || !errors.Is(err, lease.ErrLost) {
		t.Errorf("%s: err = %v, want *LostError", what, err)
		return
	}
	if lost.Worker != worker || lost.Taken != taken {
		t.Errorf("%s: %+v, want worker %d, taken %v", what, *lost, worker, taken)
	}
}

// concurrentAcquire races more claimers than IDs: each ID goes to exactly one, the rest
// are told every ID is held.
func concurrentAcquire(t *testing.T, b lease.Backend) {
	const max, claimers = 11, 16
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		got  []int64
		full int
	)
	start := make(chan struct{})
	for range claimers {
		wg.Go(func() {
			<-start
			c, err := b.Acquire(context.Background(), max, lease.NewToken(), time.Minute)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				got = append(got, c.Worker)
			case errors.Is(err, lease.ErrAllTaken):
				full++
			default:
				t.Error(err)
			}
		})
	}
	close(start)
	wg.Wait()
	slices.Sort(got)
	want := make([]int64, max+1)
	for i := range want {
		want[i] = int64(i)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) || full != claimers-max-1 {
		t.Errorf("claimed %v and %d were refused; want %v and %d", got, full, want, claimers-max-1)
	}
}

// lowestFree: a released ID in the middle is the next one claimed, before the gap above
// the highest.
func lowestFree(t *testing.T, b lease.Backend) {
	ctx := context.Background()
	toks := map[int64]string{}
	for range 5 {
		tok := lease.NewToken()
		c, err := b.Acquire(ctx, 100, tok, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		toks[c.Worker] = tok
	}
	for _, w := range []int64{3, 1} {
		if err := b.Release(ctx, w, toks[w], time.Time{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, want := range []int64{1, 3, 5, 6} {
		c, err := b.Acquire(ctx, 100, lease.NewToken(), time.Minute)
		if err != nil || c.Worker != want {
			t.Fatalf("acquire = %d, %v; want %d", c.Worker, err, want)
		}
	}
}

// workerRange checks a RangeBackend keeps a new fleet's claims within its range and off
// the old fleet's IDs below it.
func workerRange(t *testing.T, b lease.RangeBackend) {
	ctx := context.Background()
	const ttl = time.Minute
	old, err := b.Acquire(ctx, 4, lease.NewToken(), ttl)
	if err != nil || old.Worker != 0 {
		t.Fatalf("old fleet's claim = %+v, %v", old, err)
	}
	for want := int64(5); want <= 7; want++ {
		c, err := b.AcquireRange(ctx, 5, 7, lease.NewToken(), ttl)
		if err != nil || c.Worker != want {
			t.Fatalf("AcquireRange(5, 7) = %+v, %v; want worker %d", c, err, want)
		}
	}
	_, err = b.AcquireRange(ctx, 5, 7, lease.NewToken(), ttl)
	var all *lease.AllTakenError
	if !errors.As(err, &all) || all.Min != 5 || all.Max != 7 || err.Error() != "lease: every worker ID in [5, 7] is held" {
		t.Fatalf("AcquireRange with [5, 7] held = %v, want \"lease: every worker ID in [5, 7] is held\"", err)
	}
	// The old fleet's range still has 1 to 4 free: the new fleet's claims did not take them.
	if c, err := b.Acquire(ctx, 4, lease.NewToken(), ttl); err != nil || c.Worker != 1 {
		t.Fatalf("old fleet's second claim = %+v, %v; want worker 1", c, err)
	}
	if _, err := b.AcquireRange(ctx, 3, 2, lease.NewToken(), ttl); err == nil {
		t.Fatal("AcquireRange(3, 2) succeeded")
	}
	acquired := make(chan int64, 1)
	l, err := lease.Acquire(ctx, b, lease.Config{Layout: snowflake.Classic(), MinWorker: 8, MaxWorker: 9, TTL: time.Minute,
		OnEvent: func(e lease.Event) {
			if e.Kind == lease.Acquired {
				select {
				case acquired <- e.Worker:
				default:
				}
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close(ctx)
	if w := <-acquired; w != 8 {
		t.Fatalf("Lease with MinWorker 8 acquired worker %d", w)
	}
}

// concurrentRange races claimers of a new fleet for [4, 9] beside claimers of an old one
// for [0, 3], more of each than IDs: each ID goes to exactly one claimer of its own fleet,
// the rest are told every ID of their range is held.
func concurrentRange(t *testing.T, b lease.RangeBackend) {
	const claimers = 10
	var (
		wg             sync.WaitGroup
		mu             sync.Mutex
		oldIDs, newIDs []int64
		full           = map[string]int{}
	)
	start := make(chan struct{})
	for i := range 2 * claimers {
		wg.Go(func() {
			<-start
			var c lease.Claim
			var err error
			fleet := "old"
			if i%2 == 0 {
				c, err = b.Acquire(context.Background(), 3, lease.NewToken(), time.Minute)
			} else {
				fleet = "new"
				c, err = b.AcquireRange(context.Background(), 4, 9, lease.NewToken(), time.Minute)
			}
			mu.Lock()
			defer mu.Unlock()
			var all *lease.AllTakenError
			switch {
			case err == nil && fleet == "old":
				oldIDs = append(oldIDs, c.Worker)
			case err == nil:
				newIDs = append(newIDs, c.Worker)
			case errors.As(err, &all):
				if fleet == "new" && (all.Min != 4 || all.Max != 9) || fleet == "old" && all.Max != 3 {
					t.Errorf("%s fleet: %v", fleet, err)
				}
				full[fleet]++
			default:
				t.Error(err)
			}
		})
	}
	close(start)
	wg.Wait()
	slices.Sort(oldIDs)
	slices.Sort(newIDs)
	if fmt.Sprint(oldIDs) != "[0 1 2 3]" || fmt.Sprint(newIDs) != "[4 5 6 7 8 9]" || full["old"] != claimers-4 || full["new"] != claimers-6 {
		t.Errorf("old fleet claimed %v (%d refused), new fleet %v (%d refused); want [0 1 2 3] (%d) and [4 5 6 7 8 9] (%d)",
			oldIDs, full["old"], newIDs, full["new"], claimers-4, claimers-6)
	}
}
