package etcdlease

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/idgen/idgen/runtime/lease"
)

// TestContract is runtime/lease's backend contract (testContract there) on etcd, with the
// expiry step on etcd's whole-second leases.
func TestContract(t *testing.T) {
	b, c := newT(t, "contract")
	ctx := context.Background()
	const ttl = time.Minute
	tokens := []string{lease.NewToken(), lease.NewToken(), lease.NewToken()}
	for i, tok := range tokens {
		before := time.Now()
		cl, err := b.Acquire(ctx, 2, tok, ttl)
		if err != nil {
			t.Fatalf("acquire %d: %v", i, err)
		}
		if d := cl.Expires.Sub(before.Add(ttl)); d < 0 || d > 5*time.Second {
			t.Errorf("acquire %d: Expires %v, %v after the claim began plus the TTL", i, cl.Expires, d)
		}
		if cl != (lease.Claim{Worker: int64(i), Fresh: true, Expires: cl.Expires}) {
			t.Errorf("acquire %d = %+v, want worker %d, fresh, with no history", i, cl, i)
		}
	}
	_, err := b.Acquire(ctx, 2, lease.NewToken(), ttl)
	var all *lease.AllTakenError
	if !errors.Is(err, lease.ErrAllTaken) || !errors.As(err, &all) || all.Max != 2 {
		t.Fatalf("acquire with every ID held: err = %v, want *AllTakenError{Max: 2}", err)
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
	cl, err := b.Acquire(ctx, 2, lease.NewToken(), ttl)
	if err != nil {
		t.Fatal(err)
	}
	if cl.Worker != 1 || !cl.Last.Equal(t1) || cl.Fresh {
		t.Errorf("acquire after release = %+v, want worker 1, last %v, not fresh", cl, t1)
	}
	if d := cl.Prev.Sub(before); d < -time.Millisecond || d > 5*time.Second {
		t.Errorf("acquire after release: Prev %v, %v after the release began", cl.Prev, d)
	}
	wantLost(t, "release by the replaced holder", b.Release(ctx, 1, tokens[1], t1), 1, true)

	// A lease that expired cannot be renewed, and is claimed with its end as Prev. etcd
	// counts whole seconds: a 1 s lease, and etcd's own expiry to wait for.
	tok := lease.NewToken()
	if err := b.Release(ctx, 2, tokens[2], time.Time{}); err != nil {
		t.Fatal(err)
	}
	if cl, err := b.Acquire(ctx, 2, tok, time.Second); err != nil || cl.Worker != 2 {
		t.Fatalf("acquire = %+v, %v; want worker 2", cl, err)
	}
	waitGone(t, c, b.holder+"2")
	err = b.Renew(ctx, 2, tok, time.Second, time.Time{})
	var lost *lease.LostError
	if !errors.As(err, &lost) || lost.Taken || lost.Expired.IsZero() || !errors.Is(err, lease.ErrLost) {
		t.Fatalf("renew after expiry: err = %v, want *LostError with Expired", err)
	}
	if !strings.Contains(err.Error(), "lease: worker ID 2 lost: expired at ") {
		t.Errorf("error = %q", err)
	}
	cl, err = b.Acquire(ctx, 2, lease.NewToken(), ttl)
	if err != nil {
		t.Fatal(err)
	}
	if cl.Worker != 2 || !cl.Prev.Equal(lost.Expired) || cl.Fresh {
		t.Errorf("acquire of the expired ID = %+v, want worker 2, Prev %v, not fresh", cl, lost.Expired)
	}
	wantLost(t, "release after the ID was taken over", b.Release(ctx, 2, tok, time.Time{}), 2, true)

	if _, err := b.Acquire(ctx, 0, lease.NewToken(), ttl); !errors.Is(err, lease.ErrAllTaken) {
		t.Errorf("acquire in [0, 0]: err = %v, want ErrAllTaken", err)
	}
	if _, err := b.Acquire(ctx, -1, lease.NewToken(), ttl); err == nil {
		t.Error("acquire with a negative max succeeded")
	}
}

// waitGone waits until etcd has deleted key (its lease expired).
func waitGone(t *testing.T, c *clientv3.Client, key string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		r, err := c.Get(context.Background(), key)
		if err == nil && len(r.Kvs) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s still there after 10 s (%v)", key, err)
		}
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

// TestConcurrentAcquire races more claimers than IDs: each ID goes to exactly one, the
// rest are told every ID is held.
func TestConcurrentAcquire(t *testing.T) {
	b, _ := newT(t, "concurrent")
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

// TestLowestFree: a released ID in the middle is the next one claimed, before the gap
// above the highest.
func TestLowestFree(t *testing.T) {
	b, _ := newT(t, "dense")
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

// TestStrayHolderKeys: keys under holder/ that are not a worker ID in canonical decimal
// ("-0", "00", "01", "+1", "007", "x", left by hand or by another tool) neither hold an ID
// nor make Acquire try one that is held: with 0 and 1 held, the next claim is 2, then 3,
// and then all are taken. (A stray "-0" beside a held 0 made Acquire try 1, held, a
// hundred times, failing with "lost 100 races" while 2 and 3 were free.)
func TestStrayHolderKeys(t *testing.T) {
	b, c := newT(t, "stray")
	ctx := context.Background()
	for _, want := range []int64{0, 1} {
		if cl, err := b.Acquire(ctx, 3, lease.NewToken(), time.Minute); err != nil || cl.Worker != want {
			t.Fatalf("acquire = %d, %v; want %d", cl.Worker, err, want)
		}
	}
	for _, stray := range []string{"-0", "00", "01", "+1", "007", "x", "2x"} {
		if _, err := c.Put(ctx, b.Keys()[0]+stray, "stray"); err != nil {
			t.Fatal(err)
		}
	}
	for _, want := range []int64{2, 3} {
		if cl, err := b.Acquire(ctx, 3, lease.NewToken(), time.Minute); err != nil || cl.Worker != want {
			t.Fatalf("acquire with stray holder keys = %d, %v; want %d", cl.Worker, err, want)
		}
	}
	var full *lease.AllTakenError
	if _, err := b.Acquire(ctx, 3, lease.NewToken(), time.Minute); !errors.As(err, &full) {
		t.Fatalf("acquire with 0-3 held: %v, want *lease.AllTakenError", err)
	}
}
