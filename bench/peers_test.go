package bench_test

import (
	"testing"

	"github.com/idgen/idgen/bench"
)

// BenchmarkNext measures every generator one ID at a time, as
// BenchmarkNext/<generator>/serial and BenchmarkNext/<generator>/parallel; the NextN
// benchmarks also report ns/ID. The capped generators (idgen-capped, bwmarrin, sonyflake)
// measure their cap more than their code: 244 ns/op is idgen's and bwmarrin's 4,096,000
// IDs/s, 39 µs/op sonyflake's 25,600.
func BenchmarkNext(b *testing.B) {
	for _, bm := range bench.Benchmarks() {
		b.Run(bm.Name+"/serial", bm.Serial)
		if bm.Parallel != nil {
			b.Run(bm.Name+"/parallel", func(b *testing.B) { bm.Parallel(b, 0) })
		}
	}
}
