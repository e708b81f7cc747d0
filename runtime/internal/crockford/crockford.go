// Package crockford is the one copy of Crockford's base32 alphabet, in lowercase (no i,
// l, o or u), that the prefixed snowflake text (runtime/codec) and TypeID suffixes
// (runtime/typeid) encode with.
package crockford

// Alphabet is Crockford's base32 alphabet in lowercase.
const Alphabet = "0123456789abcdefghjkmnpqrstvwxyz"

// Invalid is what Index maps a byte outside the alphabet to.
const Invalid = 0xff

// Index maps a byte to its 5-bit value, or to Invalid.
var Index = func() (t [256]byte) {
	for i := range t {
		t[i] = Invalid
	}
	for i := 0; i < len(Alphabet); i++ {
		t[Alphabet[i]] = byte(i)
	}
	return t
}()
