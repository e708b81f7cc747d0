package codec

import (
	"bytes"
	"encoding/json"
	"testing"
)

var jsonStrings = []string{
	"", "ORD20260408123456000042", "txn_01h455vb4pex5vsknk084sn02q", "a b~", `say "hi"`, `back\slash`,
	"tab\there", "nul\x00", "<script>&", "caf\u00e9", "\u2028\u2029", "bad \xff utf-8", "del\x7f",
}

// TestMarshalJSONString: the same bytes as json.Marshal, in one allocation for the text of
// an ID or a business number.
func TestMarshalJSONString(t *testing.T) {
	for _, s := range jsonStrings {
		got, err := MarshalJSONString(s)
		want, _ := json.Marshal(s)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("MarshalJSONString(%q) = %s, %v; json.Marshal: %s", s, got, err, want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { MarshalJSONString("ORD20260408123456000042") }); n != 1 {
		t.Errorf("%v allocs for a business number, want 1", n)
	}
}

func FuzzMarshalJSONString(f *testing.F) {
	for _, s := range jsonStrings {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := MarshalJSONString(s)
		want, _ := json.Marshal(s)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("MarshalJSONString(%q) = %s, %v; json.Marshal: %s", s, got, err, want)
		}
	})
}

func BenchmarkMarshalJSONString(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		MarshalJSONString("ORD20260408123456000042")
	}
}

func BenchmarkMarshalJSONStringStdlib(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		json.Marshal("ORD20260408123456000042")
	}
}
