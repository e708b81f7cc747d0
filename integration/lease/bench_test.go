package lease_test

import (
	"context"
	"testing"
	"time"

	"github.com/idgen/idgen/runtime/lease"
)

// BenchmarkAcquire measures a claim of the lowest free worker ID on each store; the ID is
// released between claims, outside the timing, so every claim takes over a released row.
func BenchmarkAcquire(b *testing.B) {
	ctx := context.Background()
	for _, k := range kinds {
		b.Run(k.Name, func(b *testing.B) {
			be := openT(b, k.Setup(b), "bench_acquire")
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
		})
	}
}

// BenchmarkRenew measures one renewal on each store: what a Lease costs its store every
// TTL/3.
func BenchmarkRenew(b *testing.B) {
	ctx := context.Background()
	for _, k := range kinds {
		b.Run(k.Name, func(b *testing.B) {
			be := openT(b, k.Setup(b), "bench_renew")
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
		})
	}
}
