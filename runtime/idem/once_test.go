package idem_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/idgen/idgen/runtime/idem"
)

// TestOnceBesideMiddleware: one Memory store serves the middleware and Once. Messages
// whose IDs are the key the store holds acme's request order-1 under, and order-1 itself,
// done first, leave acme's first POST with key order-1 to run (not 422, not a replay); and
// that request, done, does not make a new message with its stored key a duplicate.
// (integration/idem's TestOnceNamespace does the same on every store.)
func TestOnceBesideMiddleware(t *testing.T) {
	store := idem.NewMemory()
	ctx := context.Background()
	var stored []string
	runs := 0
	mw, err := idem.New(idem.Config{Store: store, Scope: func(r *http.Request) (string, error) { return r.Header.Get("X-Tenant"), nil }})
	if err != nil {
		t.Fatal(err)
	}
	h := mw.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k, _ := idem.KeyFrom(r.Context())
		stored = append(stored, k.Scoped)
		runs++
		w.WriteHeader(http.StatusCreated)
	}))
	post := func(tenant, key string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, "/orders", strings.NewReader(`{"cents":1}`))
		req.Header.Set("Idempotency-Key", key)
		req.Header.Set("X-Tenant", tenant)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	// The stored form of acme's key order-1, learnt from acme's request with another key.
	post("acme", "probe")
	acmeOrder := strings.Replace(stored[0], "probe", "order-1", 1)
	messages := 0
	for _, id := range []string{acmeOrder, "order-1"} {
		if err := idem.Once(ctx, store, id, func(context.Context) error { messages++; return nil }, idem.OnceOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if rec := post("acme", "order-1"); rec.Code != http.StatusCreated || rec.Header().Get(idem.ReplayedHeader) != "" || runs != 2 {
		t.Fatalf("acme's first POST with order-1 after messages %q and order-1: %d replayed=%q, %d runs", acmeOrder, rec.Code, rec.Header().Get(idem.ReplayedHeader), runs)
	}
	if stored[1] != acmeOrder {
		t.Fatalf("the request was stored as %q, want %q", stored[1], acmeOrder)
	}
	// The request first: a message with its stored key still runs.
	post("acme", "order-2")
	if err := idem.Once(ctx, store, stored[2], func(context.Context) error { messages++; return nil }, idem.OnceOptions{}); err != nil || messages != 3 {
		t.Errorf("message %q after acme's request: %v, %d of 3 messages ran", stored[2], err, messages)
	}
}
