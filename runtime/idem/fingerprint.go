package idem

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"
)

// fingerprint hashes what makes two requests with one key the same request: the method,
// the escaped path (/a%2Fb and /a/b are different resources), the query, the headers
// chosen by Config.FingerprintHeaders and the body (as Config.FingerprintBody maps it).
//
// The hashed text is method, escaped path and query on lines of their own, then each
// chosen header as `Name: ["v1" "v2"]`, then the body's SHA-256: no field can end early
// and run into the next (URLs hold no raw newlines; header values are quoted).
//
// An error of Config.FingerprintBody is returned as it is.
func (m *Middleware) fingerprint(r *http.Request, body []byte) (string, error) {
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
		h := sha256.New()
		if err := m.cfg.FingerprintBody(h, body); err != nil {
			return "", err
		}
		b = h.Sum(b)
	} else {
		bodySum := sha256.Sum256(body)
		b = append(b, bodySum[:]...)
	}
	sum := sha256.Sum256(b)
	var out [2 * sha256.Size]byte
	hex.Encode(out[:], sum[:])
	return string(out[:]), nil
}
