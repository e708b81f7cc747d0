package typeid

import (
	"bytes"
	"encoding/hex"
	"errors"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
)

// validCases are the spec's valid examples (v0.3): each decodes to its prefix and UUID,
// and the UUID encodes back to the same text.
var validCases = []struct {
	name, typeid, prefix, uuid string
}{
	{"nil", "00000000000000000000000000", "", "00000000-0000-0000-0000-000000000000"},
	{"one", "00000000000000000000000001", "", "00000000-0000-0000-0000-000000000001"},
	{"ten", "0000000000000000000000000a", "", "00000000-0000-0000-0000-00000000000a"},
	{"sixteen", "0000000000000000000000000g", "", "00000000-0000-0000-0000-000000000010"},
	{"thirty-two", "00000000000000000000000010", "", "00000000-0000-0000-0000-000000000020"},
	{"max-valid", "7zzzzzzzzzzzzzzzzzzzzzzzzz", "", "ffffffff-ffff-ffff-ffff-ffffffffffff"},
	{"valid-alphabet", "prefix_0123456789abcdefghjkmnpqrs", "prefix", "0110c853-1d09-52d8-d73e-1194e95b5f19"},
	{"valid-uuidv7", "prefix_01h455vb4pex5vsknk084sn02q", "prefix", "01890a5d-ac96-774b-bcce-b302099a8057"},
	{"prefix-underscore", "pre_fix_00000000000000000000000000", "pre_fix", "00000000-0000-0000-0000-000000000000"},
	// Beyond the spec's list: the prefix bounds it states.
	{"prefix-one-letter", "a_00000000000000000000000000", "a", "00000000-0000-0000-0000-000000000000"},
	{"prefix-63", strings.Repeat("ab", 31) + "c_01h455vb4pex5vsknk084sn02q", strings.Repeat("ab", 31) + "c", "01890a5d-ac96-774b-bcce-b302099a8057"},
	{"prefix-double-underscore", "a__b_7zzzzzzzzzzzzzzzzzzzzzzzzz", "a__b", "ffffffff-ffff-ffff-ffff-ffffffffffff"},
}

// invalidCases are the spec's invalid examples (v0.3) and jetify's additions, with the
// reason Split gives for each.
var invalidCases = []struct {
	name, typeid, reason string
}{
	{"prefix-uppercase", "PREFIX_00000000000000000000000000", `invalid prefix "PREFIX": has uppercase 'P' at 0`},
	{"prefix-numeric", "12345_00000000000000000000000000", `invalid prefix "12345": has '1' at 0, outside [a-z_]`},
	{"prefix-period", "pre.fix_00000000000000000000000000", `invalid prefix "pre.fix": has '.' at 3, outside [a-z_]`},
	{"prefix-non-ascii", "préfix_00000000000000000000000000", `invalid prefix "préfix": has 'é' at 2, outside [a-z_]`},
	{"prefix-spaces", "  prefix_00000000000000000000000000", `invalid prefix "  prefix": has ' ' at 0, outside [a-z_]`},
	{"prefix-64-chars", strings.Repeat("abcdefghijklmnopqrstuvwxyz", 2) + "abcdefghijkl_00000000000000000000000000", `invalid prefix "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijkl": is 64 bytes long, more than 63`},
	{"separator-empty-prefix", "_00000000000000000000000000", `'_' without a prefix`},
	{"separator-empty", "_", `'_' without a prefix`},
	{"suffix-short", "prefix_1234567890123456789012345", "suffix is 25 bytes long, want 26"},
	{"suffix-long", "prefix_123456789012345678901234567", "suffix is 27 bytes long, want 26"},
	{"suffix-spaces", "prefix_1234567890123456789012345 ", "suffix has ' ' at 32, outside the base32 alphabet"},
	{"suffix-uppercase", "prefix_0123456789ABCDEFGHJKMNPQRS", "suffix has uppercase 'A' at 17"},
	{"suffix-hyphens", "prefix_123456789-123456789-123456", "suffix has '-' at 16, outside the base32 alphabet"},
	{"suffix-wrong-alphabet", "prefix_ooooooiiiiiiuuuuuuulllllll", "suffix has 'o' at 7, outside the base32 alphabet"},
	{"suffix-ambiguous-crockford", "prefix_i23456789ol23456789oi23456", "suffix has 'i' at 7, outside the base32 alphabet"},
	{"suffix-hyphens-crockford", "prefix_123456789-0123456789-0123456", "suffix is 28 bytes long, want 26"},
	{"suffix-overflow", "prefix_8zzzzzzzzzzzzzzzzzzzzzzzzz", "suffix starts with '8': more than 128 bits"},
	{"prefix-underscore-start", "_prefix_00000000000000000000000000", `invalid prefix "_prefix": starts with '_'`},
	{"prefix-underscore-end", "prefix__00000000000000000000000000", `invalid prefix "prefix_": ends with '_'`},
	{"empty", "", "empty"},
	{"prefix-empty", "prefix_", "suffix is 0 bytes long, want 26"},
	// Beyond the spec's list.
	{"suffix-letter-first", "prefix_azzzzzzzzzzzzzzzzzzzzzzzzz", "suffix starts with 'a': more than 128 bits"},
	{"suffix-uppercase-first", "prefix_Z0000000000000000000000000", "suffix has uppercase 'Z' at 7"},
	{"suffix-invalid-utf8", "prefix_0000000000000000000000000\xff", "suffix has '\uFFFD' at 32, outside the base32 alphabet"},
	{"suffix-nul", "prefix_0000000000000\x00000000000000", `suffix has '\x00' at 20, outside the base32 alphabet`},
	{"no-prefix-long", "01h455vb4pex5vsknk084sn02qq", "suffix is 27 bytes long, want 26"},
	{"prefix-uppercase-last", "usеR_00000000000000000000000000", `invalid prefix "usеR": has 'е' at 2, outside [a-z_]`}, // Cyrillic е
}

func mustUUID(t testing.TB, s string) (u [16]byte) {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, "-", ""))
	if err != nil || len(b) != 16 {
		t.Fatalf("bad test UUID %q: %v", s, err)
	}
	return [16]byte(b)
}

func TestSpecValid(t *testing.T) {
	for _, tc := range validCases {
		t.Run(tc.name, func(t *testing.T) {
			want := mustUUID(t, tc.uuid)
			if got := Format(tc.prefix, want); got != tc.typeid {
				t.Errorf("Format(%q, %s) = %q, want %q", tc.prefix, tc.uuid, got, tc.typeid)
			}
			prefix, u, err := Split(tc.typeid)
			if err != nil || prefix != tc.prefix || u != want {
				t.Errorf("Split(%q) = %q, %x, %v; want %q, %x", tc.typeid, prefix, u, err, tc.prefix, want)
			}
			u, err = Parse(tc.prefix, tc.typeid)
			if err != nil || u != want {
				t.Errorf("Parse(%q, %q) = %x, %v; want %x", tc.prefix, tc.typeid, u, err, want)
			}
			if err := ValidPrefix(tc.prefix); err != nil {
				t.Errorf("ValidPrefix(%q) = %v", tc.prefix, err)
			}
			suffix := tc.typeid[len(tc.typeid)-SuffixLen:]
			if u, err := DecodeSuffix(suffix); err != nil || u != want {
				t.Errorf("DecodeSuffix(%q) = %x, %v; want %x", suffix, u, err, want)
			}
		})
	}
}

func TestSpecInvalid(t *testing.T) {
	for _, tc := range invalidCases {
		t.Run(tc.name, func(t *testing.T) {
			prefix, u, err := Split(tc.typeid)
			checkParseError(t, err, tc.typeid, "", tc.reason)
			if prefix != "" || u != ([16]byte{}) {
				t.Errorf("Split(%q) returned %q, %x with its error", tc.typeid, prefix, u)
			}
			// No prefix makes it valid either.
			for _, want := range []string{"", "prefix", "pre", "fix", "pre_fix", "p"} {
				if u, err := Parse(want, tc.typeid); err == nil {
					t.Errorf("Parse(%q, %q) = %x, nil; want an error", want, tc.typeid, u)
				}
			}
		})
	}
}

// checkParseError checks that err is a *ParseError for input with the given Want and
// Reason, matching ErrInvalid.
func checkParseError(t *testing.T, err error, input, want, reason string) {
	t.Helper()
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v (%T), want *ParseError", err, err)
	}
	if !errors.Is(err, ErrInvalid) {
		t.Errorf("%v does not match ErrInvalid", err)
	}
	if pe.Input != input || pe.Want != want || pe.Reason != reason {
		t.Errorf("got ParseError{Input: %q, Want: %q, Reason: %q}\nwant ParseError{Input: %q, Want: %q, Reason: %q}",
			pe.Input, pe.Want, pe.Reason, input, want, reason)
	}
	if !strings.HasPrefix(err.Error(), "typeid: ") {
		t.Errorf("message %q lacks the package prefix", err)
	}
}

func TestParseReasons(t *testing.T) {
	const suffix = "01h455vb4pex5vsknk084sn02q"
	for _, tc := range []struct{ want, input, reason string }{
		{"order", "user_" + suffix, `prefix "user", want "order"`},
		{"order", "order" + suffix, `no prefix, want "order"`},
		{"order", suffix, `no prefix, want "order"`},
		{"order", "ORDER_" + suffix, `invalid prefix "ORDER": has uppercase 'O' at 0`},
		{"order", "Order_" + suffix, `invalid prefix "Order": has uppercase 'O' at 0`},
		{"order", "order__" + suffix, `invalid prefix "order_": ends with '_'`},
		{"order", "order_" + suffix + "_", `invalid prefix "order_01h455vb4pex5vsknk084sn02q": has '0' at 6, outside [a-z_]`},
		{"order", "_" + suffix, `'_' without a prefix`},
		{"order", "orders_" + suffix, `prefix "orders", want "order"`},
		{"order", "orde_" + suffix, `prefix "orde", want "order"`},
		{"pre", "pre_fix_" + suffix, `prefix "pre_fix", want "pre"`},
		{"fix", "pre_fix_" + suffix, `prefix "pre_fix", want "fix"`},
		{"pre_fix", "fix_" + suffix, `prefix "fix", want "pre_fix"`},
		{"", "user_" + suffix, `prefix "user", want none`},
		{"", "_" + suffix, `'_' without a prefix`},
		{"order", "", "empty"},
		{"", "", "empty"},
		{"order", "order_", "suffix is 0 bytes long, want 26"},
		{"order", "order_" + suffix[:25], "suffix is 25 bytes long, want 26"},
		{"order", "order_" + suffix + "0", "suffix is 27 bytes long, want 26"},
		{"order", "order_01H455VB4PEX5VSKNK084SN02Q", "suffix has uppercase 'H' at 8"},
		{"order", "order_81h455vb4pex5vsknk084sn02q", "suffix starts with '8': more than 128 bits"},
		{"order", "order_01h455vb4pex5vsknk084sn0uq", "suffix has 'u' at 30, outside the base32 alphabet"},
		{"", "01h455vb4pex5vsknk084sn0Uq", "suffix has uppercase 'U' at 24"},
		{"Order", "Order_" + suffix, `wanted prefix "Order" is invalid: has uppercase 'O' at 0`},
		{"order_", "order__" + suffix, `wanted prefix "order_" is invalid: ends with '_'`},
		{"_order", "_order_" + suffix, `wanted prefix "_order" is invalid: starts with '_'`},
		{strings.Repeat("a", 64), strings.Repeat("a", 64) + "_" + suffix, `wanted prefix "` + strings.Repeat("a", 64) + `" is invalid: is 64 bytes long, more than 63`},
	} {
		u, err := Parse(tc.want, tc.input)
		if u != ([16]byte{}) {
			t.Errorf("Parse(%q, %q) returned %x with its error", tc.want, tc.input, u)
		}
		checkParseError(t, err, tc.input, tc.want, tc.reason)
	}
}

func TestDecodeSuffixReasons(t *testing.T) {
	for _, tc := range []struct{ input, reason string }{
		{"", "suffix is 0 bytes long, want 26"},
		{"0000000000000000000000000", "suffix is 25 bytes long, want 26"},
		{"prefix_00000000000000000000000000", "suffix is 33 bytes long, want 26"},
		{"0000000000_000000000000000", "suffix has '_' at 10, outside the base32 alphabet"},
		{"000000000000000000000000L0", "suffix has uppercase 'L' at 24"},
		{"0000000000000000000000000l", "suffix has 'l' at 25, outside the base32 alphabet"},
		{"9zzzzzzzzzzzzzzzzzzzzzzzzz", "suffix starts with '9': more than 128 bits"},
		{"zzzzzzzzzzzzzzzzzzzzzzzzzz", "suffix starts with 'z': more than 128 bits"},
		{"é000000000000000000000000", "suffix has 'é' at 0, outside the base32 alphabet"},
	} {
		u, err := DecodeSuffix(tc.input)
		if u != ([16]byte{}) {
			t.Errorf("DecodeSuffix(%q) returned %x with its error", tc.input, u)
		}
		checkParseError(t, err, tc.input, "", tc.reason)
	}
}

func TestValidPrefix(t *testing.T) {
	for _, p := range []string{"", "a", "z", "ab", "user", "a_b", "a__b", "pre_fix_post", strings.Repeat("x", 63)} {
		if err := ValidPrefix(p); err != nil {
			t.Errorf("ValidPrefix(%q) = %v", p, err)
		}
	}
	for _, tc := range []struct{ prefix, problem string }{
		{"_", "starts with '_'"},
		{"__", "starts with '_'"},
		{"_a", "starts with '_'"},
		{"a_", "ends with '_'"},
		{"User", "has uppercase 'U' at 0"},
		{"usEr", "has uppercase 'E' at 2"},
		{"user1", "has '1' at 4, outside [a-z_]"},
		{"us-er", "has '-' at 2, outside [a-z_]"},
		{"us er", "has ' ' at 2, outside [a-z_]"},
		{"ü", "has 'ü' at 0, outside [a-z_]"},
		{"a\xffb", "has '\uFFFD' at 1, outside [a-z_]"},
		{strings.Repeat("x", 64), "is 64 bytes long, more than 63"},
		{strings.Repeat("X", 1000), "is 1000 bytes long, more than 63"},
	} {
		err := ValidPrefix(tc.prefix)
		var pe *PrefixError
		if !errors.As(err, &pe) || !errors.Is(err, ErrInvalid) {
			t.Errorf("ValidPrefix(%q) = %v (%T), want a *PrefixError matching ErrInvalid", tc.prefix, err, err)
			continue
		}
		if pe.Prefix != tc.prefix || pe.Problem != tc.problem {
			t.Errorf("ValidPrefix(%q) = PrefixError{%q, %q}, want problem %q", tc.prefix, pe.Prefix, pe.Problem, tc.problem)
		}
	}
}

func TestErrorMessages(t *testing.T) {
	_, err := Parse("order", "user_01h455vb4pex5vsknk084sn02q")
	if got, want := err.Error(), `typeid: invalid ID "user_01h455vb4pex5vsknk084sn02q": prefix "user", want "order"`; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	err = ValidPrefix("a_")
	if got, want := err.Error(), `typeid: invalid prefix "a_": ends with '_'`; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	// A hostile input is not repeated in full.
	long := strings.Repeat("a", 1<<20)
	_, err = Parse("order", long)
	if msg := err.Error(); len(msg) > 300 || !strings.Contains(msg, `aaa"...`) {
		t.Errorf("message for a 1 MiB input is %d bytes: %.300s", len(msg), msg)
	}
	if msg := ValidPrefix(long).Error(); len(msg) > 300 {
		t.Errorf("message for a 1 MiB prefix is %d bytes", len(msg))
	}
	if errors.Is(err, errors.New("typeid: invalid")) {
		t.Error("ParseError matches an unrelated error with the same text")
	}
}

// referenceSuffix encodes u with math/big, digit by digit from the least significant, as
// a check on AppendSuffix that shares none of its code.
func referenceSuffix(u [16]byte) string {
	n := new(big.Int).SetBytes(u[:])
	out := make([]byte, SuffixLen)
	d := new(big.Int)
	for i := SuffixLen - 1; i >= 0; i-- {
		n.DivMod(n, big.NewInt(32), d)
		out[i] = alphabet[d.Int64()]
	}
	return string(out)
}

var testPrefixes = []string{"", "a", "user", "order", "pre_fix", "a__b", strings.Repeat("q", 63)}

func TestRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var u [16]byte
	for i := range 20000 {
		for j := 0; j < 16; j += 8 {
			v := r.Uint64()
			for k := range 8 {
				u[j+k] = byte(v >> (8 * k))
			}
		}
		if i%4 == 0 { // shape some as UUIDv7: version 7, variant 10
			u[6] = u[6]&0x0f | 0x70
			u[8] = u[8]&0x3f | 0x80
		}
		suffix := string(AppendSuffix(nil, u))
		if ref := referenceSuffix(u); suffix != ref {
			t.Fatalf("AppendSuffix(%x) = %q, reference %q", u, suffix, ref)
		}
		if back, err := DecodeSuffix(suffix); err != nil || back != u {
			t.Fatalf("DecodeSuffix(%q) = %x, %v; want %x", suffix, back, err, u)
		}
		prefix := testPrefixes[i%len(testPrefixes)]
		s := Format(prefix, u)
		if back, err := Parse(prefix, s); err != nil || back != u {
			t.Fatalf("Parse(%q, %q) = %x, %v; want %x", prefix, s, back, err, u)
		}
		if p, back, err := Split(s); err != nil || p != prefix || back != u {
			t.Fatalf("Split(%q) = %q, %x, %v; want %q, %x", s, p, back, err, prefix, u)
		}
	}
}

// TestOrder: the suffix sorts as the UUID bytes do, so UUIDv7 TypeIDs with one prefix sort
// by time.
func TestOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var a, b [16]byte
	for range 5000 {
		for i := range a {
			a[i], b[i] = byte(r.Uint32()), byte(r.Uint32())
		}
		if r.IntN(2) == 0 { // share a leading run, as UUIDv7s minted close together do
			copy(b[:r.IntN(16)], a[:])
		}
		if got, want := strings.Compare(Format("", a), Format("", b)), bytes.Compare(a[:], b[:]); got != want {
			t.Fatalf("%x vs %x: text compares %d, bytes %d", a, b, got, want)
		}
	}
}

func TestAppendKeepsDst(t *testing.T) {
	u := mustUUID(t, "01890a5d-ac96-774b-bcce-b302099a8057")
	got := Append([]byte("id="), "user", u)
	if string(got) != "id=user_01h455vb4pex5vsknk084sn02q" {
		t.Errorf("Append = %q", got)
	}
	got = Append([]byte("id="), "", u)
	if string(got) != "id=01h455vb4pex5vsknk084sn02q" {
		t.Errorf("Append with no prefix = %q", got)
	}
}

func TestAllocs(t *testing.T) {
	u := mustUUID(t, "01890a5d-ac96-774b-bcce-b302099a8057")
	const s = "user_01h455vb4pex5vsknk084sn02q"
	buf := make([]byte, 0, 128)
	var sink [16]byte
	for _, tc := range []struct {
		name string
		want float64
		f    func()
	}{
		{"AppendSuffix", 0, func() { buf = AppendSuffix(buf[:0], u) }},
		{"Append", 0, func() { buf = Append(buf[:0], "user", u) }},
		{"Parse", 0, func() { sink, _ = Parse("user", s) }},
		{"Split", 0, func() { _, sink, _ = Split(s) }},
		{"DecodeSuffix", 0, func() { sink, _ = DecodeSuffix(s[5:]) }},
		{"ValidPrefix", 0, func() { _ = ValidPrefix("pre_fix") }},
		{"Format", 1, func() { _ = Format("user", u) }},
	} {
		if got := testing.AllocsPerRun(100, tc.f); got != tc.want {
			t.Errorf("%s: %v allocs, want %v", tc.name, got, tc.want)
		}
	}
	_ = sink
}

// TestHostile: inputs built to trip index arithmetic never panic and are refused.
func TestHostile(t *testing.T) {
	inputs := []string{
		"_", "__", "___", "a_", "_a", "a", "7", "8",
		strings.Repeat("_", 100),
		strings.Repeat("a_", 100) + "00000000000000000000000000",
		strings.Repeat("\xff", 27),
		"user_" + strings.Repeat("\x00", 26),
		"user_\u0100" + strings.Repeat("0", 24),
		strings.Repeat("z", 1<<16),
	}
	for _, in := range inputs {
		for _, want := range []string{"", "a", "user", "a_a", strings.Repeat("a", 63), strings.Repeat("a", 64), "_"} {
			if _, err := Parse(want, in); err == nil {
				t.Errorf("Parse(%q, %.40q) succeeded", want, in)
			}
		}
		if _, _, err := Split(in); err == nil {
			t.Errorf("Split(%.40q) succeeded", in)
		}
		if _, err := DecodeSuffix(in); err == nil {
			t.Errorf("DecodeSuffix(%.40q) succeeded", in)
		}
	}
}
