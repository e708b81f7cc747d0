package idem

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"unicode/utf8"
)

// fingerprint hashes what makes two requests with one key the same request: the method,
// the escaped path (/a%2Fb and /a/b are different resources), the query, the headers
// chosen by Config.FingerprintHeaders and the body (as Config.FingerprintBody maps it).
//
// The hashed text is method, escaped path and query on lines of their own, then each
// chosen header as `Name: ["v1" "v2"]`, then the body's SHA-256: no field can end early
// and run into the next (URLs hold no raw newlines; header values are quoted).
func (m *Middleware) fingerprint(r *http.Request, body []byte) string {
	var buf [512]byte
	b := append(buf[:0], r.Method...)
	b = append(b, '\n')
	b = append(b, r.URL.EscapedPath()...)
	b = append(b, '\n')
	b = append(b, r.URL.RawQuery...)
	b = append(b, '\n')
	for _, name := range m.cfg.FingerprintHeaders {
		b = append(b, name...)
		b = append(b, ": ["...)
		for i, v := range r.Header.Values(name) {
			if i > 0 {
				b = append(b, ' ')
			}
			b = strconv.AppendQuote(b, v)
		}
		b = append(b, "]\n"...)
	}
	if m.cfg.FingerprintBody != nil {
		body = m.cfg.FingerprintBody(body)
	}
	bodySum := sha256.Sum256(body)
	b = append(b, bodySum[:]...)
	sum := sha256.Sum256(b)
	var out [2 * sha256.Size]byte
	hex.Encode(out[:], sum[:])
	return string(out[:])
}

// CanonicalJSON is a Config.FingerprintBody for JSON APIs: a body that is one JSON value
// is re-encoded with object keys sorted and no insignificant whitespace, so two requests
// that differ only in those are one request; numbers keep their text (1.0 and 1 differ).
// A body that is not one valid JSON value in valid UTF-8 is returned unchanged, so it is
// compared by its bytes.
func CanonicalJSON(body []byte) []byte {
	// Invalid UTF-8 decodes to U+FFFD: two bodies would become one.
	if !utf8.Valid(body) {
		return body
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return body
	}
	// Anything after the value (another value, a stray ] or }) keeps the bytes.
	if _, err := dec.Token(); err != io.EOF {
		return body
	}
	out, err := json.Marshal(v)
	if err != nil {
		return body
	}
	return out
}
