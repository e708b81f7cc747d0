package idem

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
)

// fingerprint hashes what makes two requests with one key the same request: the method,
// the escaped path (/a%2Fb and /a/b are different resources), the query, the headers
// chosen by Config.FingerprintHeaders and the body (as Config.FingerprintBody maps it).
func (m *Middleware) fingerprint(r *http.Request, body []byte) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n%s\n", r.Method, r.URL.EscapedPath(), r.URL.RawQuery)
	for _, name := range m.cfg.FingerprintHeaders {
		fmt.Fprintf(h, "%s: %q\n", name, r.Header.Values(name))
	}
	if m.cfg.FingerprintBody != nil {
		body = m.cfg.FingerprintBody(body)
	}
	bodySum := sha256.Sum256(body)
	h.Write(bodySum[:])
	return hex.EncodeToString(h.Sum(nil))
}

// CanonicalJSON is a Config.FingerprintBody for JSON APIs: a body that is one JSON value
// is re-encoded with object keys sorted and no insignificant whitespace, so two requests
// that differ only in those are one request; numbers keep their text (1.0 and 1 differ).
// A body that is not JSON is returned unchanged, so it is compared by its bytes.
func CanonicalJSON(body []byte) []byte {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return body
	}
	out, err := json.Marshal(v)
	if err != nil {
		return body
	}
	return out
}
