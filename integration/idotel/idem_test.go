package idotel_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/idgen/idgen/plugins/idotel"
	"github.com/idgen/idgen/runtime/idem"
)

// TestIdem sends through the real middleware a request, its retry (a replay) and the same
// key with another body (a mismatch), and a request without a key (not reported).
func TestIdem(t *testing.T) {
	m := newMeter(t)
	obs, err := idotel.NewIdem(m.opts)
	if err != nil {
		t.Fatal(err)
	}
	mw, err := idem.New(idem.Config{Store: idem.NewMemory(), Scope: idem.SingleTenant, Observer: obs})
	if err != nil {
		t.Fatal(err)
	}
	runs := 0
	h := mw.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		runs++
		w.WriteHeader(http.StatusCreated)
	}))
	for i, tc := range []struct {
		key, body string
		code      int
	}{
		{"k1", `{"cents":1999}`, http.StatusCreated},
		{"k1", `{"cents":1999}`, http.StatusCreated},          // the retry: replayed
		{"k1", `{"cents":5}`, http.StatusUnprocessableEntity}, // another request: mismatch
		{"", `{"cents":1}`, http.StatusCreated},               // no key: not reported
	} {
		req := httptest.NewRequest(http.MethodPost, "/orders", strings.NewReader(tc.body))
		if tc.key != "" {
			req.Header.Set("Idempotency-Key", tc.key)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != tc.code {
			t.Fatalf("request %d: status %d, want %d", i, rec.Code, tc.code)
		}
	}
	if runs != 2 {
		t.Errorf("handler ran %d times, want 2", runs)
	}
	c := m.collect(t)
	c.unit(t, "idgen.idem.request.duration", "s")
	for outcome, want := range map[string]uint64{"ran": 1, "replayed": 1, "mismatch": 1, "in_flight": 0, "store_failed": 0} {
		if cnt, _ := c.hist(t, "idgen.idem.request.duration", idotel.IdemOutcomeKey.String(outcome)); cnt != want {
			t.Errorf("idgen.idem.request.duration{%s}: %d requests, want %d", outcome, cnt, want)
		}
	}
	if cnt, _ := c.hist(t, "idgen.idem.request.duration"); cnt != 3 {
		t.Errorf("idgen.idem.request.duration: %d requests, want the 3 with a key", cnt)
	}
}
