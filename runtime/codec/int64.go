package codec

import (
	"fmt"
	"strconv"
	"strings"

	crockford32 "github.com/idgen/idgen/runtime/internal/crockford"
)

// crockford is Crockford's base32 alphabet in lowercase: no i, l, o or u.
const crockford = crockford32.Alphabet

// PrefixedLen is the length of the encoded part of a prefixed ID: 13 base32 characters
// hold 65 bits, so every non-negative int64 fits at a fixed width and the text sorts like
// the number.
const PrefixedLen = 13

// crockfordIndex maps a byte to its value in crockford, or 0xff.
var crockfordIndex = &crockford32.Index

// ParseInt64 parses the canonical decimal form of a non-negative int64, the one
// strconv.FormatInt writes: ASCII digits only, no sign, no spaces and no leading zeros
// ("0" itself is fine), so one ID has one text (cache and idempotency keys depend on it).
func ParseInt64(typ, s string) (int64, error) {
	if s == "" {
		return 0, Errorf(typ, s, "empty")
	}
	if len(s) > 19 {
		return 0, Errorf(typ, s, "more than 19 digits")
	}
	if s[0] == '0' && len(s) > 1 {
		return 0, Errorf(typ, s, "leading zero: want %s", strings.TrimLeft(s, "0"))
	}
	var v uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, Errorf(typ, s, "%q at offset %d is not a decimal digit", c, i)
		}
		v = v*10 + uint64(c-'0')
	}
	if v > 1<<63-1 {
		return 0, Errorf(typ, s, "overflows int64")
	}
	return int64(v), nil
}

// AppendPrefixed appends prefix, "_" and the 13-character base32 form of v, which must
// not be negative.
func AppendPrefixed(dst []byte, prefix string, v int64) []byte {
	dst = append(dst, prefix...)
	dst = append(dst, '_')
	u := uint64(v)
	var b [PrefixedLen]byte
	for i := PrefixedLen - 1; i >= 0; i-- {
		b[i] = crockford[u&31]
		u >>= 5
	}
	return append(dst, b[:]...)
}

// ParsePrefixed parses what AppendPrefixed writes for prefix: exactly that prefix, one
// underscore and 13 lowercase base32 characters of a non-negative int64.
func ParsePrefixed(typ, prefix, s string) (int64, error) {
	if len(s) != len(prefix)+1+PrefixedLen {
		return 0, Errorf(typ, s, "want %q followed by %d base32 characters", prefix+"_", PrefixedLen)
	}
	if s[:len(prefix)] != prefix || s[len(prefix)] != '_' {
		return 0, Errorf(typ, s, "want prefix %q", prefix+"_")
	}
	var u uint64
	for i, c := range []byte(s[len(prefix)+1:]) {
		d := crockfordIndex[c]
		if d == 0xff {
			return 0, Errorf(typ, s, "%q is not a lowercase base32 character", c)
		}
		if i == 0 && d > 7 {
			return 0, Errorf(typ, s, "overflows int64")
		}
		u = u<<5 | uint64(d)
	}
	if u > 1<<63-1 {
		return 0, Errorf(typ, s, "overflows int64")
	}
	return int64(u), nil
}

// UnmarshalJSONInt64 decodes a JSON ID exactly as encoding/json hands it to an
// UnmarshalJSON method: no surrounding whitespace, and either null, a JSON string without
// escapes whose contents parseText reads, or, when numbers is true, a JSON integer in its
// canonical form (no sign, no leading zeros, no fraction or exponent). It reports null
// separately, so the caller can leave its value alone as encoding/json expects.
func UnmarshalJSONInt64(typ string, b []byte, numbers bool, parseText func(string) (int64, error)) (v int64, null bool, err error) {
	switch {
	case len(b) == 0:
		return 0, false, Errorf(typ, "", "empty JSON")
	case string(b) == "null":
		return 0, true, nil
	case b[0] == '"':
		s, err := plainJSONString(typ, b)
		if err != nil {
			return 0, false, err
		}
		v, err := parseText(s)
		return v, false, err
	case !numbers:
		return 0, false, Errorf(typ, string(b), "want a JSON string")
	case b[0] == '-':
		return 0, false, Errorf(typ, string(b), "negative")
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false, Errorf(typ, string(b), "not a JSON integer")
		}
	}
	v, err = ParseInt64(typ, string(b))
	return v, false, err
}

// plainJSONString returns the contents of a JSON string that needs no unescaping: b is a
// quote, bytes that are neither a quote, a backslash nor a control character, and a
// quote. IDs never need escapes, and refusing them keeps one JSON text per ID.
func plainJSONString(typ string, b []byte) (string, error) {
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return "", Errorf(typ, string(b), "want a JSON string without escapes")
	}
	for _, c := range b[1 : len(b)-1] {
		switch {
		case c == '"' || c == '\\':
			return "", Errorf(typ, string(b), "want a JSON string without escapes")
		case c < 0x20:
			return "", Errorf(typ, string(b), "control character %s in JSON string", strconv.QuoteRune(rune(c)))
		}
	}
	return string(b[1 : len(b)-1]), nil
}

// ScanInt64 converts a value read from SQL: an integer, or text (decimal, or what
// parseText reads). NULL gives 0 and null true.
func ScanInt64(typ string, src any, parseText func(string) (int64, error)) (v int64, null bool, err error) {
	switch x := src.(type) {
	case nil:
		return 0, true, nil
	case int64:
		if x < 0 {
			return 0, false, Errorf(typ, strconv.FormatInt(x, 10), "negative")
		}
		return x, false, nil
	case string:
		return scanText(typ, x, parseText)
	case []byte:
		return scanText(typ, string(x), parseText)
	}
	return 0, false, &ParseError{Type: typ, Input: "", Reason: scanTypeReason(src)}
}

func scanText(typ, s string, parseText func(string) (int64, error)) (int64, bool, error) {
	if v, err := ParseInt64(typ, s); err == nil {
		return v, false, nil
	}
	if parseText == nil {
		return 0, false, Errorf(typ, s, "not a decimal ID")
	}
	v, err := parseText(s)
	return v, false, err
}

// ScanString converts a value read from SQL into text. NULL gives "" and null true.
func ScanString(typ string, src any) (s string, null bool, err error) {
	switch x := src.(type) {
	case nil:
		return "", true, nil
	case string:
		return x, false, nil
	case []byte:
		return string(x), false, nil
	}
	return "", false, &ParseError{Type: typ, Reason: scanTypeReason(src)}
}

// ScanUUID converts a value read from SQL into 16 bytes: text that parseText reads (what
// a uuid, UUID or char(36) column returns) or 16 raw bytes. The generated Value always
// writes the 36-character text, so a binary(16) column is not a supported home for an ID
// (MariaDB refuses the text: "Data too long"); the raw form is read only so that bytes
// another writer stored still scan. NULL gives null true.
func ScanUUID(typ string, src any, parseText func(string) ([16]byte, error)) (u [16]byte, null bool, err error) {
	switch x := src.(type) {
	case nil:
		return u, true, nil
	case string:
		u, err = parseText(x)
		return u, false, err
	case []byte:
		if len(x) == 16 {
			return [16]byte(x), false, nil
		}
		u, err = parseText(string(x))
		return u, false, err
	}
	return u, false, &ParseError{Type: typ, Reason: scanTypeReason(src)}
}

func scanTypeReason(src any) string {
	return fmt.Sprintf("cannot scan a %T into it", src)
}
