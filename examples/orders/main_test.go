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

	"github.com/idgen/idgen/examples/quickstart/models"
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

func TestOrdersKeysPerAccount(t *testing.T) {
	h := newHarness(t)
	acme := h.post("acme", "k1", `{"cents":1999}`)
	globex := h.post("globex", "k1", `{"cents":1999}`)
	if acme.status != 201 || globex.status != 201 || globex.replayed() || acme.no() == globex.no() {
		t.Fatalf("two accounts, one key: acme %v, globex %v (replayed %v)", acme, globex, globex.replayed())
	}
	if h.rows("acme", "k1") != 1 || h.rows("globex", "k1") != 1 {
		t.Fatalf("rows: acme %d, globex %d", h.rows("acme", "k1"), h.rows("globex", "k1"))
	}
	// Each account's retry gets its own order back.
	for account, want := range map[string]string{"acme": acme.no(), "globex": globex.no()} {
		if a := h.post(account, "k1", `{"cents":1999}`); a.status != 201 || a.no() != want || !a.replayed() {
			t.Errorf("%s retries: %v, want %s replayed", account, a, want)
		}
	}
	// Eight accounts at once, one key: eight orders.
	var wg sync.WaitGroup
	nos := make([]string, 8)
	for i := range nos {
		wg.Go(func() {
			if a := h.post(fmt.Sprintf("tenant-%d", i), "shared", `{"cents":7}`); a.status == 201 && !a.replayed() {
				nos[i] = a.no()
			} else {
				t.Errorf("tenant-%d: %v", i, a)
			}
		})
	}
	wg.Wait()
	seen := map[string]bool{}
	for _, no := range nos {
		seen[no] = true
	}
	if len(seen) != len(nos) {
		t.Fatalf("eight accounts got %v", nos)
	}

	// GET: one's own order is 200; another's is 404, exactly like a missing one.
	if a := h.get("acme", acme.no()); a.status != 200 || a.no() != acme.no() || a.json["cents"] != float64(1999) {
		t.Fatalf("acme gets its order: %v", a)
	}
	missing, err := models.NewOrderNo()
	if err != nil {
		t.Fatal(err)
	}
	notFound := h.get("acme", missing.String())
	if !isProblem(notFound, 404) {
		t.Fatalf("a missing order: %v", notFound)
	}
	other := h.get("acme", globex.no())
	if other.status != 404 || !bytes.Equal(other.body, notFound.body) || other.header.Get("Content-Type") != notFound.header.Get("Content-Type") {
		t.Fatalf("acme gets globex's order: %v, a missing one is %v", other, notFound)
	}
	if a := h.get("", acme.no()); !isProblem(a, 401) {
		t.Fatalf("get without an account: %v", a)
	}
	if a := h.get("acme", "ORD1"); !isProblem(a, 400) {
		t.Fatalf("bad number: %v", a)
	}
}

func TestOrdersClientMistakes(t *testing.T) {
	h := newHarness(t)
	// No key on the route that requires one: the middleware's 400, nothing stored.
	if a := h.post("acme", "", `{"cents":1999}`); !isProblem(a, 400) {
		t.Fatalf("no key: %v", a)
	}
	if a := h.post("", "k1", `{"cents":1999}`); !isProblem(a, 401) {
		t.Fatalf("no account: %v", a)
	}
	if a := h.post(strings.Repeat("a", maxAccountLen+1), "k1", `{"cents":1999}`); !isProblem(a, 401) {
		t.Fatalf("long account: %v", a)
	}
	if a := h.post("acme", strings.Repeat("k", 256), `{"cents":1999}`); !isProblem(a, 400) {
		t.Fatalf("long key: %v", a)
	}
	if n := h.total(); n != 0 {
		t.Fatalf("%d orders stored", n)
	}
	// Malformed bodies: 400 with a JSON error, nothing stored, and the key given back so
	// the corrected request goes through under it.
	for i, body := range []string{
		``,
		`not json`,
		`{"cents":`,
		`{}`,
		`[]`,
		`null`,
		`{"cents":null}`,
		`{"cents":"1999"}`,
		`{"cents":0}`,
		`{"cents":-5}`,
		`{"cents":1.5}`,
		`{"cents":99999999999999999999}`,
		`{"cents":5,"note":"x"}`,
		`{"cents":5}{"cents":6}`,
		`{"cents":5} trailing`,
	} {
		key := fmt.Sprintf("bad-%d", i)
		a := h.post("acme", key, body)
		if !isProblem(a, 400) || a.json["detail"] == "" {
			t.Errorf("body %q: %v", body, a)
		}
		if n := h.rows("acme", key); n != 0 {
			t.Errorf("body %q stored %d orders", body, n)
		}
		if a := h.post("acme", key, `{"cents":100}`); a.status != 201 || a.replayed() {
			t.Errorf("body %q, then a good one under its key: %v", body, a)
		}
	}
}

func TestOrdersFoundByKey(t *testing.T) {
	h := newHarness(t)
	// An order stored under a key the middleware no longer knows (its record expired, or
	// another process won a race): the POST answers with that order and inserts nothing.
	old := Order{Account: "acme", RequestID: "k-old", Cents: 700}
	if err := h.s.db.Create(&old).Error; err != nil {
		t.Fatal(err)
	}
	if a := h.post("acme", "k-old", `{"cents":700}`); a.status != 201 || a.no() != old.No.String() || a.replayed() {
		t.Fatalf("a key in the table: %v, want %s", a, old.No)
	}
	other := Order{Account: "acme", RequestID: "k-other", Cents: 700}
	if err := h.s.db.Create(&other).Error; err != nil {
		t.Fatal(err)
	}
	if a := h.post("acme", "k-other", `{"cents":800}`); !isProblem(a, 422) {
		t.Fatalf("a key in the table with another amount: %v", a)
	}
	if h.rows("acme", "k-old") != 1 || h.rows("acme", "k-other") != 1 {
		t.Fatalf("rows: %d, %d", h.rows("acme", "k-old"), h.rows("acme", "k-other"))
	}
	// Another account's order under the same key is not found: a new order.
	if a := h.post("globex", "k-old", `{"cents":700}`); a.status != 201 || a.no() == old.No.String() {
		t.Fatalf("globex with acme's key: %v", a)
	}
}

func TestOrdersDatabaseError(t *testing.T) {
	h := newHarness(t)
	if err := h.s.db.Migrator().DropTable(&Order{}); err != nil {
		t.Fatal(err)
	}
	// A failing database is a generic 500; the driver's error is in the log only.
	if a := h.post("acme", "k1", `{"cents":1999}`); !isProblem(a, 500) {
		t.Fatalf("post: %v", a)
	}
	no, err := models.NewOrderNo()
	if err != nil {
		t.Fatal(err)
	}
	if a := h.get("acme", no.String()); !isProblem(a, 500) {
		t.Fatalf("get: %v", a)
	}
	logs := h.log.String()
	// The create fails in the plugin's unique-key lookup (which names the missing table),
	// the read in the driver.
	if !strings.Contains(logs, `table \"orders\" does not exist`) || !strings.Contains(logs, "no such table") || !strings.Contains(logs, "level=ERROR") {
		t.Fatalf("the log lacks the database errors:\n%s", logs)
	}
	// A 500 gives the key back: once the database is back, the retry creates the order.
	if err := h.s.db.AutoMigrate(&Order{}); err != nil {
		t.Fatal(err)
	}
	if a := h.post("acme", "k1", `{"cents":1999}`); a.status != 201 || a.replayed() {
		t.Fatalf("retry: %v", a)
	}
	if n := h.rows("acme", "k1"); n != 1 {
		t.Fatalf("%d rows", n)
	}
}
