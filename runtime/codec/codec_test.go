package codec

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
)

func TestParseInt64(t *testing.T) {
	for _, tc := range []struct {
		in     string
		want   int64
		reason string
	}{
		{"0", 0, ""},
		{"7", 7, ""},
		{"007", 0, "leading zero: want 7"},
		{"00", 0, "leading zero"},
		{"0253975777475850240", 0, "leading zero: want 253975777475850240"},
		{"9223372036854775807", 1<<63 - 1, ""},
		{"9223372036854775808", 0, "overflows int64"},
		{"99999999999999999999", 0, "more than 19 digits"},
		{"", 0, "empty"},
		{"-1", 0, `'-' at offset 0 is not a decimal digit`},
		{"+1", 0, `'+' at offset 0`},
		{" 1", 0, `' ' at offset 0`},
		{"1e3", 0, `'e' at offset 1`},
	} {
		got, err := ParseInt64("UserID", tc.in)
		if tc.reason == "" {
			if err != nil || got != tc.want {
				t.Errorf("ParseInt64(%q) = %d, %v", tc.in, got, err)
			}
			continue
		}
		var pe *ParseError
		if !errors.As(err, &pe) || !errors.Is(err, ErrInvalid) || pe.Type != "UserID" || !strings.Contains(err.Error(), tc.reason) {
			t.Errorf("ParseInt64(%q) = %v, want a ParseError saying %q", tc.in, err, tc.reason)
		}
	}
}

func TestPrefixed(t *testing.T) {
	for _, v := range []int64{0, 1, 31, 32, 1<<63 - 1, 253888551064702976} {
		s := string(AppendPrefixed(nil, "usr", v))
		if len(s) != 4+PrefixedLen {
			t.Fatalf("%d -> %q", v, s)
		}
		got, err := ParsePrefixed("UserID", "usr", s)
		if err != nil || got != v {
			t.Fatalf("%q -> %d, %v", s, got, err)
		}
	}
	if got := string(AppendPrefixed(nil, "usr", 1<<63-1)); got != "usr_7zzzzzzzzzzzz" {
		t.Errorf("max = %q", got)
	}
	// Text order is number order.
	a, b := string(AppendPrefixed(nil, "o", 999)), string(AppendPrefixed(nil, "o", 1000))
	if a >= b {
		t.Errorf("%q >= %q", a, b)
	}
	for _, tc := range []struct{ in, reason string }{
		{"ord_0000000000001", `want prefix "usr_"`},
		{"usr-0000000000001", `want prefix "usr_"`},
		{"usr_000000000001", "followed by 13 base32"},
		{"usr_00000000000001", "followed by 13 base32"},
		{"usr_000000000000I", "not a lowercase base32"},
		{"usr_000000000000u", "not a lowercase base32"},
		{"usr_8000000000000", "overflows int64"},
		{"1", "followed by 13"},
	} {
		if _, err := ParsePrefixed("UserID", "usr", tc.in); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.reason) {
			t.Errorf("ParsePrefixed(%q) = %v, want %q", tc.in, err, tc.reason)
		}
	}
}

func dec(s string) (int64, error) { return ParseInt64("UserID", s) }

func TestUnmarshalJSONInt64(t *testing.T) {
	for _, tc := range []struct {
		in      string
		numbers bool
		want    int64
		null    bool
		reason  string
	}{
		{in: `"42"`, want: 42},
		{in: `42`, numbers: true, want: 42},
		{in: `0`, numbers: true, want: 0},
		{in: `"0"`, want: 0},
		{in: ` 42 `, numbers: true, reason: "not a JSON integer"},
		{in: `042`, numbers: true, reason: "leading zero"},
		{in: `"042"`, reason: "leading zero"},
		{in: "\v42", numbers: true, reason: "not a JSON integer"},
		{in: "\u00a042", numbers: true, reason: "not a JSON integer"},
		{in: "\"\v42\"", reason: "control character"},
		{in: `"\u00a042"`, reason: "want a JSON string without escapes"},
		{in: "\"\u00a042\"", reason: "not a decimal digit"},
		{in: ` "42"`, reason: "want a JSON string"},
		{in: ` null`, reason: "want a JSON string"},
		{in: `null`, null: true},
		{in: `42`, reason: "want a JSON string"},
		{in: `9223372036854775808`, numbers: true, reason: "overflows int64"},
		{in: `"9223372036854775808"`, reason: "overflows int64"},
		{in: `1e3`, numbers: true, reason: "not a JSON integer"},
		{in: `1.5`, numbers: true, reason: "not a JSON integer"},
		{in: `-1`, numbers: true, reason: "negative"},
		{in: `"4\u0032"`, reason: "without escapes"},
		{in: `"42`, reason: "without escapes"},
		{in: `true`, numbers: true, reason: "not a JSON integer"},
		{in: ``, reason: "empty JSON"},
	} {
		v, null, err := UnmarshalJSONInt64("UserID", []byte(tc.in), tc.numbers, dec)
		if tc.reason != "" {
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.reason) {
				t.Errorf("%s: %v, want %q", tc.in, err, tc.reason)
			}
			continue
		}
		if err != nil || v != tc.want || null != tc.null {
			t.Errorf("%s: %d %v %v", tc.in, v, null, err)
		}
	}
}

func TestScan(t *testing.T) {
	pre := func(s string) (int64, error) { return ParsePrefixed("UserID", "usr", s) }
	for _, tc := range []struct {
		src    any
		want   int64
		null   bool
		reason string
	}{
		{src: int64(7), want: 7},
		{src: []byte("7"), want: 7},
		{src: "7", want: 7},
		{src: "usr_0000000000007", want: 7},
		{src: nil, null: true},
		{src: int64(-7), reason: "negative"},
		{src: 7.5, reason: "cannot scan a float64"},
		{src: true, reason: "cannot scan a bool"},
		{src: "x", reason: `want "usr_" followed by 13`},
	} {
		v, null, err := ScanInt64("UserID", tc.src, pre)
		if tc.reason != "" {
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.reason) {
				t.Errorf("%v: %v, want %q", tc.src, err, tc.reason)
			}
			continue
		}
		if err != nil || v != tc.want || null != tc.null {
			t.Errorf("%v: %d %v %v", tc.src, v, null, err)
		}
	}
	if _, _, err := ScanString("OrderNo", 5); !errors.Is(err, ErrInvalid) {
		t.Errorf("ScanString(5) = %v", err)
	}
	raw := [16]byte{1, 2, 3}
	if u, _, err := ScanUUID("SessionID", raw[:], nil); err != nil || u != raw {
		t.Errorf("ScanUUID(raw) = %v, %v", u, err)
	}
}

func TestErrorfTruncates(t *testing.T) {
	err := Errorf("T", strings.Repeat("x", 200), "bad")
	if len(err.Input) != 67 {
		t.Errorf("input kept %d bytes", len(err.Input))
	}
	cause := strconv.ErrRange
	if err := Errorf("T", "1", "range: %w", cause); !errors.Is(err, cause) {
		t.Errorf("%v does not wrap its cause", err)
	}
}

func FuzzParsePrefixed(f *testing.F) {
	for _, s := range []string{"usr_0000000000007", "usr_7zzzzzzzzzzzz", "usr_8000000000000", "", "usr_", "ord_0000000000001"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParsePrefixed("UserID", "usr", s)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatal(err)
			}
			return
		}
		if back := string(AppendPrefixed(nil, "usr", v)); back != s || v < 0 {
			t.Fatalf("%q -> %d -> %q", s, v, back)
		}
	})
}

// FuzzParseInt64: an accepted text is the one strconv.FormatInt writes for its value, so
// two texts never name one ID.
func FuzzParseInt64(f *testing.F) {
	for _, s := range []string{"0", "7", "007", "0253975777475850240", "9223372036854775807", "9223372036854775808", "", "-1", "+1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseInt64("UserID", s)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatal(err)
			}
			return
		}
		if back := strconv.FormatInt(v, 10); back != s {
			t.Fatalf("%q -> %d -> %q", s, v, back)
		}
	})
}

// FuzzUnmarshalJSONInt64: accepted JSON is only what encoding/json would hand over (a
// valid JSON value) and only the canonical form of its ID: a number as FormatInt writes
// it, or that text quoted.
func FuzzUnmarshalJSONInt64(f *testing.F) {
	for _, s := range []string{`"42"`, `42`, `null`, `1e3`, `-1`, `9223372036854775808`, `"\u0034"`, `""`} {
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, b []byte, numbers bool) {
		v, null, err := UnmarshalJSONInt64("UserID", b, numbers, dec)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatal(err)
			}
			return
		}
		if !json.Valid(b) {
			t.Fatalf("%q is not JSON, but was accepted", b)
		}
		if null {
			if string(b) != "null" {
				t.Fatalf("%q accepted as null", b)
			}
			return
		}
		text := strconv.FormatInt(v, 10)
		if v < 0 || (string(b) != text || !numbers) && string(b) != `"`+text+`"` {
			t.Fatalf("%q -> %d, whose JSON forms are %s and %q", b, v, text, text)
		}
	})
}

func TestUUID(t *testing.T) {
	u := [16]byte{0x01, 0x90, 0xa6, 0xf4, 0x7c, 0x3e, 0x7b, 0x5a, 0x9c, 0x1d, 0x2e, 0x3f, 0x4a, 0x5b, 0x6c, 0x7d}
	s := string(AppendUUID(nil, u))
	if s != "0190a6f4-7c3e-7b5a-9c1d-2e3f4a5b6c7d" {
		t.Fatalf("AppendUUID = %s", s)
	}
	for _, in := range []string{s, strings.ToUpper(s)} {
		if got, err := ParseUUID("SessionID", in); err != nil || got != u {
			t.Errorf("ParseUUID(%q) = %v, %v", in, got, err)
		}
	}
	for _, bad := range []string{"", s[:35], "{" + s[:34] + "}", strings.ReplaceAll(s, "-", ""), s[:8] + "x" + s[9:], "0190a6f4-7c3e-7b5a-9c1d-2e3f4a5b6c7g",
		"00000000-0000-0000-0000-0000000000-0", "00000000-0000-0000-0000-00000000000-"} {
		if _, err := ParseUUID("SessionID", bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("ParseUUID(%q) = %v", bad, err)
		}
	}
	if got := UUIDTime(u); got.UnixMilli() != 0x0190a6f47c3e {
		t.Errorf("UUIDTime = %v", got)
	}
	v4 := u
	v4[6] = 0x4b
	if !UUIDTime(v4).IsZero() {
		t.Error("time of a v4 UUID")
	}
	if n := testing.AllocsPerRun(100, func() { _ = AppendUUID(make([]byte, 0, 40)[:0], u) }); n > 1 {
		t.Errorf("AppendUUID allocs %v", n)
	}
}

func TestUnmarshalJSONString(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		null, ok bool
	}{
		{`"abc"`, "abc", false, true},
		{`null`, "", true, true},
		{` null `, "", false, false},
		{` "abc"`, "", false, false},
		{`"a\"b"`, "", false, false},
		{`"a\u0062"`, "", false, false},
		{"\"a\tb\"", "", false, false},
		{`abc`, "", false, false},
		{`"`, "", false, false},
		{`1`, "", false, false},
	} {
		s, null, err := UnmarshalJSONString("T", []byte(tc.in))
		if (err == nil) != tc.ok || s != tc.want || null != tc.null {
			t.Errorf("%s: %q %v %v", tc.in, s, null, err)
		}
	}
}

func FuzzParseUUID(f *testing.F) {
	for _, s := range []string{"0190a6f4-7c3e-7b5a-9c1d-2e3f4a5b6c7d", "00000000-0000-0000-0000-0000000000-0", "", "0190A6F4-7C3E-7B5A-9C1D-2E3F4A5B6C7D"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := ParseUUID("T", s)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatal(err)
			}
			return
		}
		// Either case is read (RFC 9562), lowercase is written: the canonical text.
		if back := string(AppendUUID(nil, u)); back != strings.ToLower(s) {
			t.Fatalf("%q -> %q", s, back)
		}
	})
}
