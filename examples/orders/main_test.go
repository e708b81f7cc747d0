package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestOrders(t *testing.T) {
	h, closeDB, err := newService(context.Background(), filepath.Join(t.TempDir(), "orders.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer closeDB()
	srv := httptest.NewServer(h)
	defer srv.Close()
	post := func(key, account, body string) (*http.Response, map[string]any) {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/orders", strings.NewReader(body))
		if key != "" {
			req.Header.Set("Idempotency-Key", key)
		}
		req.Header.Set("X-Account", account)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		b, _ := io.ReadAll(resp.Body)
		json.Unmarshal(b, &out)
		return resp, out
	}
	resp, first := post("k1", "acme", `{"cents":1999}`)
	if resp.StatusCode != 201 || !strings.HasPrefix(first["no"].(string), "ORD") {
		t.Fatalf("create: %d %v", resp.StatusCode, first)
	}
	// The client retries: the same order comes back, marked replayed.
	resp, again := post("k1", "acme", `{"cents":1999}`)
	if resp.StatusCode != 201 || again["no"] != first["no"] || resp.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("retry: %d %v %q", resp.StatusCode, again, resp.Header.Get("Idempotent-Replayed"))
	}
	// Twenty retries at once: still one order.
	var wg sync.WaitGroup
	nos := make([]any, 20)
	for i := range nos {
		wg.Go(func() { _, o := post("k2", "acme", `{"cents":5}`); nos[i] = o["no"] })
	}
	wg.Wait()
	for _, no := range nos {
		if no != nos[0] || no == nil {
			t.Fatalf("concurrent retries got %v", nos)
		}
	}
	// Another key is another order; the same key with another payload is refused; no key is refused.
	if _, o := post("k3", "acme", `{"cents":1999}`); o["no"] == first["no"] {
		t.Fatal("a new key returned the first order")
	}
	if resp, _ := post("k1", "acme", `{"cents":1}`); resp.StatusCode != 422 {
		t.Fatalf("other payload: %d", resp.StatusCode)
	}
	if resp, _ := post("", "acme", `{"cents":1}`); resp.StatusCode != 400 {
		t.Fatalf("no key: %d", resp.StatusCode)
	}
	// Another account with the same key gets its own order.
	if _, o := post("k1", "globex", `{"cents":1999}`); o["no"] == first["no"] {
		t.Fatal("one account saw another's order")
	}
	// GET by number.
	r, err := http.Get(srv.URL + "/orders/" + first["no"].(string))
	if err != nil || r.StatusCode != 200 {
		t.Fatalf("get: %v %d", err, r.StatusCode)
	}
	r.Body.Close()
	if r, _ := http.Get(srv.URL + "/orders/ORD1"); r.StatusCode != 400 {
		t.Fatalf("bad number: %d", r.StatusCode)
	}
}
