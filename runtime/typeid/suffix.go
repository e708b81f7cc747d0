package typeid

import (
	"fmt"
	"unicode/utf8"

	"github.com/idgen/idgen/runtime/internal/crockford"
)

// SuffixLen is the length of the base32 suffix of every TypeID.
const SuffixLen = 26

// alphabet is the spec's base32 alphabet: Crockford's, lowercase, without i, l, o and u.
const alphabet = crockford.Alphabet

// invalidDigit marks a byte outside the alphabet in digits.
const invalidDigit = crockford.Invalid

// digits maps a byte to its 5-bit value, or to invalidDigit.
var digits = &crockford.Index

// AppendSuffix appends the 26-character base32 form of u to dst and returns the extended
// buffer. It does not allocate when dst has room for 26 more bytes.
//
// The 130 bits (two zero bits, then u) split into the first byte of u, whose top 3 bits
// and low 5 bits make the first two characters, and three groups of 5 bytes that make 8
// characters each.
func AppendSuffix(dst []byte, u [16]byte) []byte {
	var buf [SuffixLen]byte
	buf[0] = alphabet[u[0]>>5]
	buf[1] = alphabet[u[0]&31]
	for g := range 3 {
		b := u[1+5*g : 6+5*g]
		v := uint64(b[0])<<32 | uint64(b[1])<<24 | uint64(b[2])<<16 | uint64(b[3])<<8 | uint64(b[4])
		out := buf[2+8*g : 10+8*g]
		for j := range out {
			out[j] = alphabet[(v>>(35-5*j))&31]
		}
	}
	return append(dst, buf[:]...)
}

// DecodeSuffix decodes the 26-character base32 suffix of a TypeID (a TypeID with an empty
// prefix is just its suffix). It is strict: exactly 26 characters of the lowercase
// alphabet, the first at most '7'. Otherwise it returns a *ParseError with an empty Want.
func DecodeSuffix(s string) ([16]byte, error) {
	u, reason := decodeSuffix(s, 0)
	if reason != "" {
		return u, &ParseError{Input: s, Reason: reason}
	}
	return u, nil
}

// decodeSuffix decodes s, which starts at byte off of the input, or returns why it cannot.
func decodeSuffix(s string, off int) (u [16]byte, reason string) {
	if len(s) != SuffixLen {
		return u, fmt.Sprintf("suffix is %d bytes long, want %d", len(s), SuffixLen)
	}
	var seen byte
	for i := 0; i < SuffixLen; i++ {
		seen |= digits[s[i]]
	}
	if seen == invalidDigit {
		return u, badCharacter(s, off)
	}
	if digits[s[0]] > 7 {
		return u, fmt.Sprintf("suffix starts with %q: more than 128 bits", s[0])
	}
	u[0] = digits[s[0]]<<5 | digits[s[1]]
	for g := range 3 {
		c := s[2+8*g : 10+8*g]
		var v uint64
		for j := 0; j < len(c); j++ {
			v = v<<5 | uint64(digits[c[j]])
		}
		b := u[1+5*g : 6+5*g]
		b[0], b[1], b[2], b[3], b[4] = byte(v>>32), byte(v>>24), byte(v>>16), byte(v>>8), byte(v)
	}
	return u, ""
}

// badCharacter names the first character of s outside the alphabet.
func badCharacter(s string, off int) string {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if digits[c] != invalidDigit {
			continue
		}
		r, _ := utf8.DecodeRuneInString(s[i:])
		if 'A' <= c && c <= 'Z' {
			return fmt.Sprintf("suffix has uppercase %q at %d", r, off+i)
		}
		return fmt.Sprintf("suffix has %q at %d, outside the base32 alphabet", r, off+i)
	}
	return "" // not reached: the caller saw an invalid byte
}
