package segment_test

import (
	"context"
	"database/sql"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idgen/idgen/runtime/segment"
)

// BenchmarkNext measures IDs per second and the p99 latency of one ID, from one goroutine,
// on every store: "segment" is an Allocator in steady state (its first block reserved
// before the timer starts), "roundtrip" one store round trip per ID: INCR on Redis,
// nextval of a sequence on PostgreSQL, a one-ID reservation (an UPDATE) on MySQL and
// SQLite.
func BenchmarkNext(b *testing.B) {
	for _, k := range kinds {
		b.Run(k.name, func(b *testing.B) {
			tg := k.setup(b, "bench")
			s, c, err := open(tg)
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			ctx := context.Background()
			b.Run("segment", func(b *testing.B) {
				a := newT(b, s, "segment", segment.Options{})
				if _, err := a.NextN(ctx, 2*segment.DefaultStep); err != nil {
					b.Fatal(err)
				}
				before := a.Stats()
				measure(b, func() error { _, err := a.NextInt64(ctx); return err })
				after := a.Stats()
				b.ReportMetric(float64(after.Reserved-before.Reserved), "blocks")
				b.ReportMetric(float64(after.Waited-before.Waited), "waits")
			})
			b.Run("roundtrip", func(b *testing.B) {
				var next func() error
				switch {
				case tg.Kind == "redis":
					rc := c.(*redis.Client)
					next = func() error { return rc.Incr(ctx, tg.Prefix+"incr").Err() }
				case tg.Kind == "postgres":
					db := c.(*sql.DB)
					if _, err := db.ExecContext(ctx, "CREATE SEQUENCE IF NOT EXISTS bench_seq"); err != nil {
						b.Fatal(err)
					}
					next = func() error {
						var id int64
						return db.QueryRowContext(ctx, "SELECT nextval('bench_seq')").Scan(&id)
					}
				default:
					next = func() error { _, err := s.Reserve(ctx, "roundtrip", 1); return err }
				}
				if err := next(); err != nil {
					b.Fatal(err)
				}
				measure(b, next)
			})
		})
	}
}

// measure runs next b.N times, timing each call, and reports IDs/s and the p99 latency.
func measure(b *testing.B, next func() error) {
	lat := make([]time.Duration, b.N)
	b.ResetTimer()
	start := time.Now()
	for i := range lat {
		t0 := time.Now()
		if err := next(); err != nil {
			b.Fatal(err)
		}
		lat[i] = time.Since(t0)
	}
	elapsed := time.Since(start)
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "IDs/s")
	b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds()), "p99-ns")
}

// BenchmarkParallel measures the Allocator's mutex under contention: all goroutines
// drawing from one tag on SQLite, in steady state.
func BenchmarkParallel(b *testing.B) {
	s := openT(b, sqliteTarget(b))
	a := newT(b, s, "order", segment.Options{})
	ctx := context.Background()
	if _, err := a.NextN(ctx, 2*segment.DefaultStep); err != nil {
		b.Fatal(err)
	}
	before := a.Stats().Waited
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := a.NextInt64(ctx); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.StopTimer()
	b.ReportMetric(float64(a.Stats().Waited-before), "waits")
}
