package typeid

import (
	"fmt"
	"unicode/utf8"
)

// MaxPrefixLen is the longest prefix the spec allows, in bytes.
const MaxPrefixLen = 63

// ValidPrefix returns nil if prefix may be the prefix of a TypeID: empty, or at most 63
// characters of [a-z_] starting and ending with a letter. Otherwise it returns a
// *PrefixError. It accepts exactly what go.jetify.com/typeid v1.3.0 accepts, consecutive
// underscores included.
func ValidPrefix(prefix string) error {
	if p := prefixProblem(prefix); p != "" {
		return &PrefixError{Prefix: prefix, Problem: p}
	}
	return nil
}

// prefixProblem returns what is wrong with prefix, or "" if nothing is. It allocates only
// when something is wrong.
func prefixProblem(prefix string) string {
	if len(prefix) > MaxPrefixLen {
		return fmt.Sprintf("is %d bytes long, more than %d", len(prefix), MaxPrefixLen)
	}
	for i := 0; i < len(prefix); i++ {
		c := prefix[i]
		if ('a' <= c && c <= 'z') || c == '_' {
			continue
		}
		r, _ := utf8.DecodeRuneInString(prefix[i:])
		if 'A' <= c && c <= 'Z' {
			return fmt.Sprintf("has uppercase %q at %d", r, i)
		}
		return fmt.Sprintf("has %q at %d, outside [a-z_]", r, i)
	}
	if prefix != "" && prefix[0] == '_' {
		return "starts with '_'"
	}
	if prefix != "" && prefix[len(prefix)-1] == '_' {
		return "ends with '_'"
	}
	return ""
}
