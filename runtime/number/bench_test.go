package number_test

import (
	"testing"

	"github.com/idgen/idgen/runtime/number"
	"github.com/idgen/idgen/runtime/snowflake"
)

func benchFormat(b *testing.B) *number.Format {
	return number.MustCompile(number.Spec{Prefix: "ORD", Zone: zone(b, "Asia/Shanghai"), Layout: snowflake.Classic(), Check: true})
}

func BenchmarkAppend(b *testing.B) {
	f := benchFormat(b)
	buf := make([]byte, 0, f.Width())
	id := snowflake.ID(167492386455461895)
	b.ReportAllocs()
	for b.Loop() {
		buf, _ = f.Append(buf[:0], id)
		id++
	}
}

func BenchmarkFormat(b *testing.B) {
	f := benchFormat(b)
	id := snowflake.ID(167492386455461895)
	b.ReportAllocs()
	for b.Loop() {
		_, _ = f.Format(id)
		id++
	}
}

func BenchmarkParse(b *testing.B) {
	f := benchFormat(b)
	no, _ := f.Format(167492386455461895)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := f.Parse(no); err != nil {
			b.Fatal(err)
		}
	}
}
