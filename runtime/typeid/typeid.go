package typeid

import (
	"fmt"
	"strings"
)

// maxLen is the length of the longest TypeID: a 63-byte prefix, '_' and the suffix.
const maxLen = MaxPrefixLen + 1 + SuffixLen

// Append appends the TypeID of prefix and u to dst and returns the extended buffer: prefix,
// '_' and the 26-character suffix, or the suffix alone when prefix is empty. It does not
// allocate when dst has room. Append does not check prefix: validate it once with
// ValidPrefix, since an invalid prefix gives text that Parse refuses.
func Append(dst []byte, prefix string, u [16]byte) []byte {
	if prefix != "" {
		dst = append(dst, prefix...)
		dst = append(dst, '_')
	}
	return AppendSuffix(dst, u)
}

// Format returns the TypeID of prefix and u, as Append writes it.
func Format(prefix string, u [16]byte) string {
	var buf [maxLen]byte
	return string(Append(buf[:0], prefix, u))
}

// Parse decodes s, which must be a TypeID with exactly the given prefix: "order" takes
// "order_01h455vb4pex5vsknk084sn02q" and refuses "user_01h455vb4pex5vsknk084sn02q",
// "order01h455vb4pex5vsknk084sn02q" and "ORDER_01h455vb4pex5vsknk084sn02q"; the empty
// prefix takes a bare suffix. Any other input, an invalid prefix included, gives a
// *ParseError whose Want is prefix. Parse does not allocate unless it fails.
func Parse(prefix, s string) ([16]byte, error) {
	var u [16]byte
	reason := ""
	switch {
	case prefixProblem(prefix) != "":
		reason = fmt.Sprintf("wanted prefix %s is invalid: %s", quote(prefix), prefixProblem(prefix))
	case s == "":
		reason = "empty"
	case prefix == "" && strings.IndexByte(s, '_') < 0:
		u, reason = decodeSuffix(s, 0)
	case prefix != "" && len(s) > len(prefix) && s[len(prefix)] == '_' && s[:len(prefix)] == prefix &&
		strings.IndexByte(s[len(prefix)+1:], '_') < 0:
		u, reason = decodeSuffix(s[len(prefix)+1:], len(prefix)+1)
	default:
		// The prefix of s, up to its last '_', is not the one wanted.
		i := strings.LastIndexByte(s, '_')
		if i < 0 {
			reason = "no prefix, want " + quote(prefix)
		} else if reason = prefixReason(s[:i]); reason == "" {
			want := "none"
			if prefix != "" {
				want = quote(prefix)
			}
			reason = fmt.Sprintf("prefix %s, want %s", quote(s[:i]), want)
		}
	}
	if reason != "" {
		return [16]byte{}, &ParseError{Input: s, Want: prefix, Reason: reason}
	}
	return u, nil
}

// Split decodes a TypeID with any valid prefix, which it returns as a substring of s. The
// prefix is everything before the last '_', or empty when s has none. Invalid input gives
// a *ParseError with an empty Want.
func Split(s string) (prefix string, u [16]byte, err error) {
	if s == "" {
		return "", u, &ParseError{Input: s, Reason: "empty"}
	}
	off := 0
	if i := strings.LastIndexByte(s, '_'); i >= 0 {
		if reason := prefixReason(s[:i]); reason != "" {
			return "", u, &ParseError{Input: s, Reason: reason}
		}
		prefix, off = s[:i], i+1
	}
	u, reason := decodeSuffix(s[off:], off)
	if reason != "" {
		return "", [16]byte{}, &ParseError{Input: s, Reason: reason}
	}
	return prefix, u, nil
}

// prefixReason says what is wrong with p, the text before the separator of an input, or
// returns "" if p is a valid non-empty prefix.
func prefixReason(p string) string {
	if p == "" {
		return "'_' without a prefix"
	}
	if problem := prefixProblem(p); problem != "" {
		return "invalid prefix " + quote(p) + ": " + problem
	}
	return ""
}
