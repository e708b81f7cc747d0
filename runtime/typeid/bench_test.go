package typeid

import "testing"

var benchUUID = [16]byte{0x01, 0x89, 0x0a, 0x5d, 0xac, 0x96, 0x77, 0x4b, 0xbc, 0xce, 0xb3, 0x02, 0x09, 0x9a, 0x80, 0x57}

const benchID = "user_01h455vb4pex5vsknk084sn02q"

func BenchmarkAppend(b *testing.B) {
	buf := make([]byte, 0, maxLen)
	b.ReportAllocs()
	for b.Loop() {
		buf = Append(buf[:0], "user", benchUUID)
	}
}

func BenchmarkAppendSuffix(b *testing.B) {
	buf := make([]byte, 0, SuffixLen)
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendSuffix(buf[:0], benchUUID)
	}
}

func BenchmarkFormat(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = Format("user", benchUUID)
	}
}

func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse("user", benchID); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSplit(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := Split(benchID); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeSuffix(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeSuffix(benchID[5:]); err != nil {
			b.Fatal(err)
		}
	}
}
