package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// leaks are what no response body may hold: the driver's, GORM's or the schema's words.
var leaks = []string{"UNIQUE", "constraint", "sqlite", "SQLITE", "SQL logic", "no such table", "gorm", "idx_orders", "request_id"}

// lockedBuffer is the service's log, written by concurrent requests.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// harness is a service behind a real HTTP server.
type harness struct {
	t   *testing.T
	s   *service
	url string
	log *lockedBuffer
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	logs := &lockedBuffer{}
	s, err := newService(context.Background(), filepath.Join(t.TempDir(), "orders.db"), slog.New(slog.NewTextHandler(logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("service log:\n%s", logs.String())
		}
	})
	return &harness{t: t, s: s, url: srv.URL, log: logs}
}

// answer is one HTTP response, read whole.
type answer struct {
	status int
	header http.Header
	body   []byte
	json   map[string]any
}

func (a answer) String() string { return fmt.Sprintf("%d %s", a.status, a.body) }

// replayed reports whether the middleware replayed the answer from its store.
func (a answer) replayed() bool { return a.header.Get("Idempotent-Replayed") == "true" }

// no returns the answer's order number.
func (a answer) no() string { s, _ := a.json["no"].(string); return s }

// do sends a request (account and key only when not empty) and checks that its body
// leaks nothing of the database. It may be called from other goroutines.
func (h *harness) do(method, path, account, key, body string) answer {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, h.url+path, rd)
	if err != nil {
		panic(err)
	}
	if account != "" {
		req.Header.Set("X-Account", account)
	}
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Errorf("%s %s: %v", method, path, err)
		return answer{}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		h.t.Errorf("%s %s: reading the body: %v", method, path, err)
	}
	a := answer{status: resp.StatusCode, header: resp.Header, body: b}
	json.Unmarshal(b, &a.json)
	for _, w := range leaks {
		if bytes.Contains(b, []byte(w)) {
			h.t.Errorf("%s %s answered %d with %q in its body: %s", method, path, a.status, w, b)
		}
	}
	return a
}

func (h *harness) post(account, key, body string) answer {
	return h.do(http.MethodPost, "/orders", account, key, body)
}

func (h *harness) get(account, no string) answer {
	return h.do(http.MethodGet, "/orders/"+no, account, "", "")
}

// rows counts the orders stored under (account, key).
func (h *harness) rows(account, key string) int64 {
	h.t.Helper()
	var n int64
	if err := h.s.db.Model(&Order{}).Where("account = ? AND request_id = ?", account, key).Count(&n).Error; err != nil {
		h.t.Fatal(err)
	}
	return n
}

// total counts every stored order.
func (h *harness) total() int64 {
	h.t.Helper()
	var n int64
	if err := h.s.db.Model(&Order{}).Count(&n).Error; err != nil {
		h.t.Fatal(err)
	}
	return n
}

// isProblem reports whether a is an RFC 9457 problem+json answer of status.
func isProblem(a answer, status int) bool {
	return a.status == status && a.header.Get("Content-Type") == "application/problem+json" && a.json["status"] == float64(status)
}

func TestOrders(t *testing.T) {
	h := newHarness(t)
	first := h.post("acme", "k1", `{"cents":1999}`)
	if first.status != 201 || !strings.HasPrefix(first.no(), "ORD") || first.replayed() {
		t.Fatalf("create: %v", first)
	}
	if loc := first.header.Get("Location"); loc != "/orders/"+first.no() {
		t.Errorf("create: Location %q", loc)
	}
	// The client retries, its JSON spaced another way: the same order comes back, replayed.
	for _, body := range []string{`{"cents":1999}`, `{ "cents": 1999 }`} {
		again := h.post("acme", "k1", body)
		if again.status != 201 || again.no() != first.no() || !again.replayed() {
			t.Fatalf("retry with %s: %v, replayed %v", body, again, again.replayed())
		}
	}
	if n := h.rows("acme", "k1"); n != 1 {
		t.Fatalf("acme's k1 is %d rows", n)
	}
	// Twenty retries at once: still one order.
	var wg sync.WaitGroup
	nos := make([]string, 20)
	for i := range nos {
		wg.Go(func() {
			if a := h.post("acme", "k2", `{"cents":5}`); a.status == 201 {
				nos[i] = a.no()
			}
		})
	}
	wg.Wait()
	for _, no := range nos {
		if no != nos[0] || no == "" {
			t.Fatalf("concurrent retries got %v", nos)
		}
	}
	if n := h.rows("acme", "k2"); n != 1 {
		t.Fatalf("acme's k2 is %d rows", n)
	}
	// Another key is another order; the same key with another payload is refused.
	if a := h.post("acme", "k3", `{"cents":1999}`); a.status != 201 || a.no() == first.no() {
		t.Fatalf("a new key: %v", a)
	}
	if a := h.post("acme", "k1", `{"cents":1}`); !isProblem(a, 422) {
		t.Fatalf("other payload: %v", a)
	}
	if n := h.rows("acme", "k1"); n != 1 {
		t.Fatalf("acme's k1 is %d rows after another payload", n)
	}
}
