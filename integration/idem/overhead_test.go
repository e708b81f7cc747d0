package idem_test

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/idgen/idgen/runtime/idem"
)

// BenchmarkOverhead measures what the middleware adds to a request in process: the same
// request through a bare handler and through the middleware on a Memory, each with
// a new key (so every request claims and completes). The difference of the two is the
// middleware's cost per request.
func BenchmarkOverhead(b *testing.B) {
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		w.Write([]byte(`{"order":"ORD2026120212345600000000001"}`))
	})
	run := func(b *testing.B, h http.Handler) {
		b.ReportAllocs()
		keys := make([]string, b.N)
		for i := range keys {
			keys[i] = "bench-" + strconv.Itoa(i)
		}
		b.ResetTimer()
		for i := range b.N {
			req := httptest.NewRequest(http.MethodPost, "/orders", strings.NewReader(`{"cents":1999}`))
			req.Header.Set("Idempotency-Key", keys[i])
			h.ServeHTTP(httptest.NewRecorder(), req)
		}
	}
	b.Run("bare", func(b *testing.B) { run(b, handler) })
	b.Run("memory", func(b *testing.B) {
		mw, err := idem.New(idem.Config{Store: idem.NewMemory(), Scope: idem.SingleTenant})
		if err != nil {
			b.Fatal(err)
		}
		run(b, mw.Wrap(handler))
	})
}
