package bench_test

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/uuid"
	jetify "go.jetify.com/typeid"

	"github.com/idgen/idgen/runtime/typeid"
)

// typeIDPrefixes covers the empty prefix, one letter, underscores inside and the longest.
var typeIDPrefixes = []string{"", "a", "user", "order", "pre_fix", "a__b", strings.Repeat("ab", 31) + "c"}

// TestTypeIDCompatible: for UUIDv7s and edge values, idgen's Format equals jetify's String
// for the same prefix and UUID, idgen parses jetify's text into the same bytes, and jetify
// parses idgen's text into the same prefix and bytes.
func TestTypeIDCompatible(t *testing.T) {
	uuids := [][16]byte{{}, {15: 1}, {0: 0x80}, {0: 0xff, 15: 0xff}}
	var max [16]byte
	for i := range max {
		max[i] = 0xff
	}
	uuids = append(uuids, max)
	for range 2000 {
		u, err := uuid.NewV7()
		if err != nil {
			t.Fatal(err)
		}
		uuids = append(uuids, u)
	}
	r := rand.New(rand.NewPCG(7, 7))
	for range 500 { // any 16 bytes, not only version 7
		var u [16]byte
		for i := range u {
			u[i] = byte(r.Uint32())
		}
		uuids = append(uuids, u)
	}
	for _, prefix := range typeIDPrefixes {
		for _, u := range uuids {
			j, err := jetify.FromUUIDBytesWithPrefix(prefix, u[:])
			if err != nil {
				t.Fatalf("jetify FromUUIDBytesWithPrefix(%q, %x): %v", prefix, u, err)
			}
			ours := typeid.Format(prefix, u)
			if ours != j.String() {
				t.Fatalf("%q %x: idgen %q, jetify %q", prefix, u, ours, j.String())
			}
			back, err := typeid.Parse(prefix, j.String())
			if err != nil || back != u {
				t.Fatalf("idgen Parse(%q, %q) = %x, %v; want %x", prefix, j.String(), back, err, u)
			}
			jb, err := jetify.FromString(ours)
			if err != nil || jb.Prefix() != prefix || !bytes.Equal(jb.UUIDBytes(), u[:]) {
				t.Fatalf("jetify FromString(%q) = %q %x, %v; want %q %x", ours, jb.Prefix(), jb.UUIDBytes(), err, prefix, u)
			}
		}
	}
}

type userPrefix struct{}

func (userPrefix) Prefix() string { return "user" }

type userID struct {
	jetify.TypeID[userPrefix]
}

// TestTypeIDSameVerdicts: on the spec's examples and on random corruptions of valid TypeIDs,
// idgen and jetify accept the same strings and decode them alike: Split against jetify's
// FromString, Parse("user", ...) against jetify's Parse of a "user" subtype, ValidPrefix
// against jetify's WithPrefix.
func TestTypeIDSameVerdicts(t *testing.T) {
	inputs := []string{
		"", "_", "__", "a_", "_a",
		"00000000000000000000000000", "7zzzzzzzzzzzzzzzzzzzzzzzzz", "8zzzzzzzzzzzzzzzzzzzzzzzzz",
		"prefix_0123456789abcdefghjkmnpqrs", "prefix_01h455vb4pex5vsknk084sn02q", "pre_fix_00000000000000000000000000",
		"PREFIX_00000000000000000000000000", "12345_00000000000000000000000000", "pre.fix_00000000000000000000000000",
		"préfix_00000000000000000000000000", "  prefix_00000000000000000000000000",
		strings.Repeat("a", 63) + "_00000000000000000000000000", strings.Repeat("a", 64) + "_00000000000000000000000000",
		"_00000000000000000000000000", "prefix_1234567890123456789012345", "prefix_123456789012345678901234567",
		"prefix_1234567890123456789012345 ", "prefix_0123456789ABCDEFGHJKMNPQRS", "prefix_123456789-123456789-123456",
		"prefix_ooooooiiiiiiuuuuuuulllllll", "prefix_i23456789ol23456789oi23456", "prefix_123456789-0123456789-0123456",
		"prefix_8zzzzzzzzzzzzzzzzzzzzzzzzz", "_prefix_00000000000000000000000000", "prefix__00000000000000000000000000",
		"prefix_", "user_01h455vb4pex5vsknk084sn02q", "user01h455vb4pex5vsknk084sn02q", "a__b_01h455vb4pex5vsknk084sn02q",
	}
	r := rand.New(rand.NewPCG(11, 13))
	const mutate = "_aAzZ079uUlLoOi-. \x00\xff"
	for range 20000 {
		u, err := uuid.NewV7()
		if err != nil {
			t.Fatal(err)
		}
		b := []byte(typeid.Format(typeIDPrefixes[r.IntN(len(typeIDPrefixes))], u))
		switch r.IntN(4) {
		case 0: // replace a byte
			b[r.IntN(len(b))] = mutate[r.IntN(len(mutate))]
		case 1: // insert a byte
			i := r.IntN(len(b) + 1)
			b = append(b[:i], append([]byte{mutate[r.IntN(len(mutate))]}, b[i:]...)...)
		case 2: // delete a byte
			i := r.IntN(len(b))
			b = append(b[:i], b[i+1:]...)
		}
		inputs = append(inputs, string(b))
	}
	accepted := 0
	for _, s := range inputs {
		prefix, u, err := typeid.Split(s)
		j, jerr := jetify.FromString(s)
		if (err == nil) != (jerr == nil) {
			t.Fatalf("%q: idgen Split error %v, jetify FromString error %v", s, err, jerr)
		}
		if err == nil {
			accepted++
			if prefix != j.Prefix() || !bytes.Equal(u[:], j.UUIDBytes()) {
				t.Fatalf("%q: idgen %q %x, jetify %q %x", s, prefix, u, j.Prefix(), j.UUIDBytes())
			}
		}
		_, err = typeid.Parse("user", s)
		_, jerr = jetify.Parse[userID](s)
		if (err == nil) != (jerr == nil) {
			t.Fatalf("%q as user: idgen Parse error %v, jetify Parse error %v", s, err, jerr)
		}
		p := s
		if i := strings.LastIndexByte(s, '_'); i >= 0 {
			p = s[:i]
		}
		_, jerr = jetify.WithPrefix(p)
		if err := typeid.ValidPrefix(p); (err == nil) != (jerr == nil) {
			t.Fatalf("prefix %q: idgen %v, jetify %v", p, err, jerr)
		}
	}
	if accepted == 0 || accepted == len(inputs) {
		t.Fatalf("%d of %d inputs accepted: the corpus does not test both verdicts", accepted, len(inputs))
	}
	t.Logf("%d inputs, %d accepted by both, the rest refused by both", len(inputs), accepted)
}
