package lease_test

import (
	"context"
	"testing"
	"time"

	"github.com/idgen/idgen/runtime/lease"
	"github.com/idgen/idgen/runtime/snowflake"
)

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
