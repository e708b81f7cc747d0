package idotel_test

import (
	"testing"
	"time"

	"github.com/idgen/idgen/plugins/idotel"
	"github.com/idgen/idgen/runtime/snowflake"
)

// BenchmarkNext issues IDs as runtime/snowflake's BenchmarkNext does, from a plain
// generator and from one whose Observer is a Snowflake registered with an SDK
// MeterProvider, in the same run: the difference is what the metrics cost per ID. The
// borrow cases lift the layout's 4096 IDs per millisecond cap (an hour of drift) so that
// the generator, not the clock, is measured.
func BenchmarkNext(b *testing.B) {
	borrow := snowflake.Options{Exhaust: snowflake.ExhaustBorrow, MaxDrift: time.Hour}
	for _, bc := range []struct {
		name string
		opts snowflake.Options
	}{{"borrow", borrow}, {"capped", snowflake.Options{}}} {
		for _, observed := range []bool{false, true} {
			name := bc.name + "/plain"
			if observed {
				name = bc.name + "/otel"
			}
			newGen := func(b *testing.B) *snowflake.Generator {
				opts := bc.opts
				if observed {
					obs, err := idotel.NewSnowflake(newMeter(b).opts)
					if err != nil {
						b.Fatal(err)
					}
					opts.Observer = obs
				}
				g, err := snowflake.New(snowflake.Classic(), 1, opts)
				if err != nil {
					b.Fatal(err)
				}
				return g
			}
			b.Run(name, func(b *testing.B) {
				g := newGen(b)
				b.ReportAllocs()
				for b.Loop() {
					if _, err := g.Next(); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run(name+"/parallel", func(b *testing.B) {
				g := newGen(b)
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
}
