package idem

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Key is the idempotency key a request is served under; KeyFrom gives it to the handler,
// so that what the handler records (an order's request ID) is exactly what the middleware
// used.
type Key struct {
	// Scope is what Config.Scope returned for the caller; empty under Once.
	Scope string
	// Value is the key the client sent, a Structured Field string ("abc") unquoted, or
	// the message key given to Once.
	Value string
	// Scoped is the key in the store: Scope and Value joined so no two pairs give one
	// string (it starts with the length of Scope in decimal), or OnceKey(Value) under
	// Once, which starts with a letter: no request's key is a message's.
	Scoped string
}

type keyContext struct{}

// KeyFrom returns the key the middleware serves the request of ctx under (or Once runs
// its function under), and false when ctx is not one the middleware or Once claimed a
// key for (no key, a method the middleware passes through).
func KeyFrom(ctx context.Context) (Key, bool) {
	k, ok := ctx.Value(keyContext{}).(*Key)
	if !ok {
		return Key{}, false
	}
	return *k, true
}

// parseKey returns the key a header value names. The IETF draft (draft-ietf-httpapi-
// idempotency-key-header) makes Idempotency-Key a Structured Field string, "abc", while
// most clients send the bare token abc: both name the key abc. A value that starts with a
// double quote must be a valid string. A bare value with a comma is a list, two field
// lines joined (RFC 9110 5.3; by a proxy or by the middleware), not a key: a key with a
// comma is sent as a string ("a,b").
func parseKey(v string) (string, error) {
	if strings.HasPrefix(v, `"`) {
		s, err := unquoteSF(v)
		if err != nil {
			return "", err
		}
		v = s
	} else if strings.Contains(v, ",") {
		return "", errors.New(`the key is a list (two Idempotency-Key fields, or one with a comma): send one key, and a key with a comma as a Structured Field string ("a,b")`)
	}
	if v == "" {
		return "", errors.New("the key is empty")
	}
	if len(v) > MaxKeyLen {
		return "", fmt.Errorf("the key is %d bytes long; at most %d", len(v), MaxKeyLen)
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < 0x20 || c == 0x7f {
			return "", fmt.Errorf("the key has a control character at byte %d", i)
		}
	}
	return v, nil
}

// unquoteSF decodes an RFC 8941 sf-string: printable ASCII between double quotes, with \"
// and \\ the only escapes.
func unquoteSF(v string) (string, error) {
	bad := errors.New(`the key starts with a double quote but is not a Structured Field string ("..." of printable ASCII, with \" and \\ escaped)`)
	if len(v) < 2 || v[len(v)-1] != '"' {
		return "", bad
	}
	v = v[1 : len(v)-1]
	if !strings.ContainsAny(v, `"\`) {
		for i := 0; i < len(v); i++ {
			if v[i] < 0x20 || v[i] > 0x7e {
				return "", bad
			}
		}
		return v, nil
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '\\':
			if i+1 == len(v) || (v[i+1] != '"' && v[i+1] != '\\') {
				return "", bad
			}
			i++
			b.WriteByte(v[i])
		case c == '"' || c < 0x20 || c > 0x7e:
			return "", bad
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}
