package lease_test

import (
	"context"
	"testing"
	"time"

	"github.com/idgen/idgen/runtime/lease"
	"github.com/idgen/idgen/runtime/snowflake"
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

// BenchmarkNext measures Lease.Next (the term, its fresh-claim flag, and a generator
// whose gate compares each stamp with the deadline) beside the bare generator, on a
// layout with an 18-bit sequence (262,144,000 IDs/s) so that the layout's cap does not
// hide the cost. Neither reads the clock per ID while its ticker runs.
func BenchmarkNext(b *testing.B) {
	layout := snowflake.Classic()
	layout.WorkerBits, layout.SeqBits = 4, 18
	var opts snowflake.Options
	b.Run("lease", func(b *testing.B) {
		l, err := lease.Acquire(context.Background(), newUsedMem(1), lease.Config{Layout: layout, Options: opts, TTL: time.Minute})
		if err != nil {
			b.Fatal(err)
		}
		defer l.Close(context.Background())
		for b.Loop() {
			if _, err := l.Next(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("generator", func(b *testing.B) {
		g, err := snowflake.New(layout, 0, opts)
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if _, err := g.Next(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
