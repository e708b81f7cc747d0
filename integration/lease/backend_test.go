package lease_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idgen/idgen/runtime/lease"
	"github.com/idgen/idgen/runtime/snowflake"
)

// TestBackend runs the contract every Backend keeps against each store.
func TestBackend(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.Name, func(t *testing.T) {
			tg := k.Setup(t)
			t.Run("contract", func(t *testing.T) { testContract(t, openT(t, tg, "contract")) })
			t.Run("concurrent", func(t *testing.T) { testConcurrentAcquire(t, openT(t, tg, "concurrent")) })
			t.Run("dense", func(t *testing.T) { testLowestFree(t, openT(t, tg, "dense")) })
			t.Run("range", func(t *testing.T) {
				b := openT(t, tg, "range")
				rb, ok := b.(lease.RangeBackend)
				if !ok {
					// It leases from 0 up: a Lease refuses a MinWorker on it.
					_, err := lease.Acquire(context.Background(), b, lease.Config{Layout: snowflake.Classic(), MinWorker: 8})
					if err == nil || !strings.Contains(err.Error(), "lease: MinWorker 8 needs a backend that claims within a range") {
						t.Fatalf("MinWorker on %T: %v", b, err)
					}
					return
				}
				testRange(t, rb)
			})
		})
	}
}

func testContract(t *testing.T, b lease.Backend) {
	ctx := context.Background()
	const ttl = time.Minute
	tokens := []string{lease.NewToken(), lease.NewToken(), lease.NewToken()}
	for i, tok := range tokens {
		before := time.Now()
		c, err := b.Acquire(ctx, 2, tok, ttl)
		if err != nil {
			t.Fatalf("acquire %d: %v", i, err)
		}
		// Expires is the store's clock (the same machine here, to a few ms) plus the TTL.
		if d := c.Expires.Sub(before.Add(ttl)); d < -50*time.Millisecond || d > 5*time.Second {
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

	// The recorded tick never goes back, and a release keeps it.
	if err := b.Renew(ctx, 1, tokens[1], ttl, t1.Add(-time.Second)); err != nil {
		t.Fatal(err)
	}
	before := time.Now()
	if err := b.Release(ctx, 1, tokens[1], time.Time{}); err != nil {
		t.Fatalf("release: %v", err)
	}
	if err := b.Release(ctx, 1, tokens[1], time.Time{}); err != nil {
		t.Errorf("second release by the same holder: %v", err)
	}
	tok := lease.NewToken()
	c, err := b.Acquire(ctx, 2, tok, ttl)
	if err != nil {
		t.Fatal(err)
	}
	if c.Worker != 1 || !c.Last.Equal(t1) || c.Fresh {
		t.Errorf("acquire after release = %+v, want worker 1, last %v, not fresh", c, t1)
	}
	// Prev is the release, in the store's clock (the same machine here, to a few ms).
	if d := c.Prev.Sub(before); d < -50*time.Millisecond || d > 5*time.Second {
		t.Errorf("acquire after release: Prev %v, %v after the release began", c.Prev, d)
	}
	wantLost(t, "release by the replaced holder", b.Release(ctx, 1, tokens[1], t1), 1, true)

	// A lease that expired cannot be renewed, and is claimed with its end as Prev.
	if err := b.Renew(ctx, 2, tokens[2], 20*time.Millisecond, time.Time{}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(60 * time.Millisecond)
	err = b.Renew(ctx, 2, tokens[2], ttl, time.Time{})
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
	wantLost(t, "release after the ID was taken over", b.Release(ctx, 2, tokens[2], time.Time{}), 2, true)

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

// testConcurrentAcquire races more claimers than IDs: each ID goes to exactly one, the
// rest are told every ID is held.
func testConcurrentAcquire(t *testing.T, b lease.Backend) {
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
	sort.Slice(got, func(i, j int) bool { return got[i] < got[j] })
	want := make([]int64, max+1)
	for i := range want {
		want[i] = int64(i)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) || full != claimers-max-1 {
		t.Errorf("claimed %v and %d were refused; want %v and %d", got, full, want, claimers-max-1)
	}
}

// testLowestFree: a released ID in the middle is the next one claimed, before the gap
// above the highest.
func testLowestFree(t *testing.T, b lease.Backend) {
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

// testRange: claims within [5, 7] (a new fleet beside an old one holding 0 to 4) take
// 5, 6 and 7 whatever is held or free below, never an ID outside, then report the range
// taken; a Lease with MinWorker claims from the range too.
func testRange(t *testing.T, b lease.RangeBackend) {
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
