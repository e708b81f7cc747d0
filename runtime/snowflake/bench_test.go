package snowflake

import (
	"context"
	"testing"
	"time"
)

func benchGen(b *testing.B, opts Options) *Generator {
	b.Helper()
	g, err := New(Classic(), 1, opts)
	if err != nil {
		b.Fatal(err)
	}
	return g
}

// borrow lets a benchmark run uncapped: an hour of drift holds 14.7 billion IDs.
var borrow = Options{Exhaust: ExhaustBorrow, MaxDrift: time.Hour}

func BenchmarkNext(b *testing.B) {
	for _, bc := range []struct {
		name string
		opts Options
	}{{"capped", Options{}}, {"borrow", borrow}} {
		b.Run(bc.name, func(b *testing.B) {
			g := benchGen(b, bc.opts)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := g.Next(); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(bc.name+"/parallel", func(b *testing.B) {
			g := benchGen(b, bc.opts)
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := g.Next(); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

func BenchmarkNextN(b *testing.B) {
	g := benchGen(b, borrow)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := g.NextN(ctx, 1000); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*1000), "ns/ID")
}

func BenchmarkAppendText(b *testing.B) {
	buf := make([]byte, 0, 32)
	id := ID(1234567890123456789)
	b.ReportAllocs()
	for b.Loop() {
		buf, _ = id.AppendText(buf[:0])
	}
}

func BenchmarkDecode(b *testing.B) {
	l := Classic()
	for b.Loop() {
		if _, err := l.Decode(1234567890123456789); err != nil {
			b.Fatal(err)
		}
	}
}
