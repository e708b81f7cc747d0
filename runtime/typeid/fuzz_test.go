package typeid

import (
	"errors"
	"testing"
)

// FuzzDecodeSuffix: any string either decodes into bytes that encode back into it, or is
// refused with a *ParseError matching ErrInvalid. Never a panic.
func FuzzDecodeSuffix(f *testing.F) {
	for _, tc := range validCases {
		f.Add(tc.typeid[len(tc.typeid)-SuffixLen:])
	}
	for _, tc := range invalidCases {
		f.Add(tc.typeid)
		if i := len(tc.typeid) - SuffixLen; i >= 0 {
			f.Add(tc.typeid[i:])
		}
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := DecodeSuffix(s)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || !errors.Is(err, ErrInvalid) || pe.Input != s || pe.Reason == "" {
				t.Fatalf("DecodeSuffix(%q): %v (%T)", s, err, err)
			}
			return
		}
		if back := string(AppendSuffix(nil, u)); back != s {
			t.Fatalf("DecodeSuffix(%q) = %x, which encodes as %q", s, u, back)
		}
		if back, err := Parse("", s); err != nil || back != u {
			t.Fatalf("Parse(\"\", %q) = %x, %v; DecodeSuffix gave %x", s, back, err, u)
		}
	})
}

// FuzzParse: Parse(prefix, s) never panics; it succeeds exactly when Split(s) does with that
// prefix, and then Format gives s back. Failures are *ParseErrors matching ErrInvalid.
func FuzzParse(f *testing.F) {
	for _, tc := range validCases {
		f.Add(tc.prefix, tc.typeid)
		f.Add("user", tc.typeid)
		f.Add("pre", tc.typeid)
	}
	for _, tc := range invalidCases {
		f.Add("prefix", tc.typeid)
		f.Add("", tc.typeid)
	}
	f.Fuzz(func(t *testing.T, prefix, s string) {
		u, err := Parse(prefix, s)
		p, su, serr := Split(s)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || !errors.Is(err, ErrInvalid) || pe.Input != s || pe.Want != prefix || pe.Reason == "" {
				t.Fatalf("Parse(%q, %q): %v (%T)", prefix, s, err, err)
			}
			if serr == nil && p == prefix {
				t.Fatalf("Parse(%q, %q) failed (%v) but Split took it", prefix, s, err)
			}
			return
		}
		if serr != nil || p != prefix || su != u {
			t.Fatalf("Parse(%q, %q) = %x but Split = %q, %x, %v", prefix, s, u, p, su, serr)
		}
		if ValidPrefix(prefix) != nil {
			t.Fatalf("Parse(%q, %q) took an invalid prefix", prefix, s)
		}
		if back := Format(prefix, u); back != s {
			t.Fatalf("Parse(%q, %q) = %x, which formats as %q", prefix, s, u, back)
		}
	})
}
