package segment_test

import (
	"fmt"
	"testing"

	"github.com/idgen/idgen/runtime/segment"
)

// BenchmarkAllocatorStrided: NextRange of up to 1000 IDs on blocks of stride 1 (idgen's
// and Leaf's tables) and stride 2 (tinyid with two databases); IDs/op is the number of
// IDs a range carries, which a server's Range call returns at once.
func BenchmarkAllocatorStrided(b *testing.B) {
	for _, delta := range []int64{1, 2} {
		b.Run(fmt.Sprintf("stride=%d", delta), func(b *testing.B) {
			s := &strideStore{delta: delta, rem: delta - 1}
			a := newT(b, s, "x", segment.Options{Step: 1 << 20, MaxStep: 1 << 20})
			ids := int64(0)
			for b.Loop() {
				r, err := a.NextRange(b.Context(), 1000)
				if err != nil {
					b.Fatal(err)
				}
				ids += r.Len()
			}
			b.ReportMetric(float64(ids)/float64(b.N), "IDs/op")
			b.ReportMetric(float64(ids)/b.Elapsed().Seconds(), "IDs/s")
		})
	}
}
