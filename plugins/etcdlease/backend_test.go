package etcdlease

import (
	"context"
	"errors"
	"path"
	"strconv"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/idgen/idgen/runtime/lease"
	"github.com/idgen/idgen/runtime/lease/leasetest"
)

// TestBackend is runtime/lease's backend contract (leasetest.RunBackend) on etcd, with
// the expiry step on etcd's whole-second leases: etcd deletes the key when it ends one;
// the "range" subtests check AcquireRange (lease.Config.MinWorker).
func TestBackend(t *testing.T) {
	var c *clientv3.Client
	leasetest.RunBackend(t, leasetest.Suite{
		Open: func(t *testing.T) lease.Backend {
			b, cl := newT(t, path.Base(t.Name()))
			c = cl
			return b
		},
		MinTTL: time.Second,
		Range:  true,
		Expired: func(t *testing.T, b lease.Backend, worker int64) {
			waitGone(t, c, b.(*Backend).holder+strconv.FormatInt(worker, 10))
		},
	})
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
