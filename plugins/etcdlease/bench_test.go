package etcdlease

import (
	"context"
	"testing"
	"time"

	"github.com/idgen/idgen/runtime/lease"
)

// BenchmarkAcquire measures a claim of the lowest free worker ID (grant, list, one
// transaction); the ID is released between claims, outside the timing, as runtime/lease's
// BenchmarkAcquire does.
func BenchmarkAcquire(b *testing.B) {
	ctx := context.Background()
	be, _ := newT(b, "bench_acquire")
	for b.Loop() {
		tok := lease.NewToken()
		c, err := be.Acquire(ctx, 1023, tok, time.Minute)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if err := be.Release(ctx, c.Worker, tok, time.Now()); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}

// BenchmarkRenew measures one renewal (a transaction and a KeepAliveOnce): what a Lease
// costs etcd every TTL/3.
func BenchmarkRenew(b *testing.B) {
	ctx := context.Background()
	be, _ := newT(b, "bench_renew")
	tok := lease.NewToken()
	c, err := be.Acquire(ctx, 1023, tok, time.Minute)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := be.Renew(ctx, c.Worker, tok, time.Minute, time.Now()); err != nil {
			b.Fatal(err)
		}
	}
}
