package idem_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idgen/idgen/integration/internal/testdb"
	"github.com/idgen/idgen/plugins/redis/redisidem"
	"github.com/idgen/idgen/runtime/idem"
	"github.com/idgen/idgen/runtime/sqldb"
)

func TestNewNeedsScope(t *testing.T) {
	_, err := idem.New(idem.Config{Store: idem.NewMemory()})
	if !errors.Is(err, idem.ErrNoScope) || !strings.Contains(err.Error(), "idem.SingleTenant") {
		t.Fatalf("New without Scope: %v, want ErrNoScope naming the fix", err)
	}
	if _, err := idem.New(idem.Config{Store: idem.NewMemory(), Scope: idem.SingleTenant}); err != nil {
		t.Fatalf("New with SingleTenant: %v", err)
	}
}

// TestKeyForms: the quoted and the bare form of a key are one key, and KeyFrom gives the
// handler the key the store holds (parseKey's cases are TestParseKey, in runtime/idem).
func TestKeyForms(t *testing.T) {
	// Over HTTP: the quoted and the bare form are one key.
	var runs int
	var seen []idem.Key
	var mu sync.Mutex
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k, ok := idem.KeyFrom(r.Context())
		mu.Lock()
		runs++
		if ok {
			seen = append(seen, k)
		}
		mu.Unlock()
		w.WriteHeader(201)
	})
	spy := newSpy(idem.NewMemory())
	srv := newServer(t, idem.Config{Store: spy, Scope: tenantScope}, h)
	if resp, _ := post(t, srv.URL, `"order-7"`, "acme", "{}"); resp.StatusCode != 201 {
		t.Fatalf("quoted key: %d", resp.StatusCode)
	}
	c := <-spy.claims
	if resp, _ := post(t, srv.URL, "order-7", "acme", "{}"); resp.Header.Get(idem.ReplayedHeader) != "true" || runs != 1 {
		t.Errorf("the bare form of a quoted key ran again: %d runs", runs)
	}
	if len(seen) != 1 || seen[0].Value != "order-7" || seen[0].Scope != "acme" || seen[0].Scoped != c.key {
		t.Errorf("KeyFrom gave %+v; the store was given %q", seen, c.key)
	}
	if _, ok := idem.KeyFrom(context.Background()); ok {
		t.Error("KeyFrom found a key in a bare context")
	}
}

// TestFingerprintForms: the escaped path counts; CanonicalJSON makes whitespace and key
// order one request, and the bytes are compared without it.
func TestFingerprintForms(t *testing.T) {
	h := &orderHandler{}
	srv := newServer(t, idem.Config{Store: idem.NewMemory(), Scope: idem.SingleTenant}, h)
	post(t, srv.URL+"/a/b", "path", "", "{}")
	if resp, _ := post(t, srv.URL+"/a%2Fb", "path", "", "{}"); resp.StatusCode != 422 {
		t.Errorf("/a%%2Fb shared /a/b's fingerprint: %d", resp.StatusCode)
	}
	post(t, srv.URL, "bytes", "", `{"a":1,"b":[1,2]}`)
	if resp, _ := post(t, srv.URL, "bytes", "", `{"b":[1, 2], "a":1}`); resp.StatusCode != 422 {
		t.Errorf("other bytes without CanonicalJSON: %d", resp.StatusCode)
	}
	canon := newServer(t, idem.Config{Store: idem.NewMemory(), Scope: idem.SingleTenant, FingerprintBody: idem.CanonicalJSON}, h)
	post(t, canon.URL, "json", "", `{"a":1,"b":[1,2]}`)
	if resp, _ := post(t, canon.URL, "json", "", "{\n  \"b\": [1, 2],\n  \"a\": 1\n}"); resp.Header.Get(idem.ReplayedHeader) != "true" {
		t.Errorf("same JSON, other layout: %d", resp.StatusCode)
	}
	if resp, _ := post(t, canon.URL, "json", "", `{"a":1.0,"b":[1,2]}`); resp.StatusCode != 422 {
		t.Errorf("1.0 for 1: %d", resp.StatusCode)
	}
	for _, tc := range []struct{ in, out string }{
		{`{"b":1,"a":{"d":2,"c":3}}`, `{"a":{"c":3,"d":2},"b":1}`},
		{` [1, "x"] `, `[1,"x"]`},
		{`12345678901234567890`, `12345678901234567890`},
		{`not json`, `not json`},
		{`{"a":1} {"b":2}`, `{"a":1} {"b":2}`},
		{``, ``},
	} {
		var b bytes.Buffer
		if err := idem.CanonicalJSON(&b, []byte(tc.in)); err != nil || b.String() != tc.out {
			t.Errorf("CanonicalJSON(%q) = %q, %v; want %q", tc.in, b.String(), err, tc.out)
		}
	}
}

// failingStores are stores whose server cannot be reached, each with what its error says
// that a client must not see.
func failingStores(t *testing.T) []struct {
	name    string
	store   idem.Store
	secrets []string
} {
	// A loopback port nobody listens on.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	_, port, _ := net.SplitHostPort(addr)
	rc := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DialTimeout: time.Second})
	t.Cleanup(func() { rc.Close() })
	dir := filepath.Join(t.TempDir(), "no-such-dir", "secret-db-name")
	sdb, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "app.db")+"?mode=rw")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sdb.Close() })
	ss, err := idem.NewSQL(sdb, sqldb.SQLite, idem.SQLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rs, err := redisidem.New(context.Background(), rc, redisidem.Options{AllowNoPersistence: true})
	if err != nil {
		t.Fatal(err)
	}
	out := []struct {
		name    string
		store   idem.Store
		secrets []string
	}{
		{"redis", rs, []string{addr, port, "dial", "refused"}},
		{"sqlite", ss, []string{"secret-db-name", "no-such-dir", "sqlite", "unable"}},
	}
	if dsn := os.Getenv(testdb.PostgresEnv); dsn != "" {
		pdb, err := sql.Open("pgx", strings.Replace(dsn, "/test?", "/idgen_no_such_database?", 1))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { pdb.Close() })
		ps, _ := idem.NewSQL(pdb, sqldb.Postgres, idem.SQLOptions{})
		out = append(out, struct {
			name    string
			store   idem.Store
			secrets []string
		}{"postgres", ps, []string{"idgen_no_such_database", "postgres", "127.0.0.1", "5432"}})
	}
	return out
}

// TestErrorsHideTheServer: a store that fails answers 503 with a generic problem and
// Retry-After, and a failing Scope 401; what failed is in the log, not in the response.
func TestErrorsHideTheServer(t *testing.T) {
	for _, fs := range failingStores(t) {
		t.Run(fs.name, func(t *testing.T) {
			var logs bytes.Buffer
			log := slog.New(slog.NewTextHandler(&logs, nil))
			mw, err := idem.New(idem.Config{Store: fs.store, Scope: idem.SingleTenant, Logger: log})
			if err != nil {
				t.Fatal(err)
			}
			req := httptest.NewRequest(http.MethodPost, "/orders", strings.NewReader("{}"))
			req.Header.Set("Idempotency-Key", "k1")
			rec := httptest.NewRecorder()
			mw.Wrap(&orderHandler{}).ServeHTTP(rec, req)
			body := rec.Body.String()
			if rec.Code != 503 || rec.Header().Get("Retry-After") == "" || rec.Header().Get("Content-Type") != "application/problem+json" {
				t.Errorf("store down: %d %v %s", rec.Code, rec.Header(), body)
			}
			for _, s := range fs.secrets {
				if strings.Contains(strings.ToLower(body), strings.ToLower(s)) {
					t.Errorf("the 503 body names %q: %s", s, body)
				}
			}
			// The log has the store's own error, which names at least one secret.
			named := false
			for _, s := range fs.secrets {
				named = named || strings.Contains(logs.String(), s)
			}
			if !named || !strings.Contains(logs.String(), "level=ERROR") {
				t.Errorf("the log does not have the store's error: %s", logs.String())
			}
		})
	}
	t.Run("scope", func(t *testing.T) {
		var logs bytes.Buffer
		secret := "session 8f3a for alice@example.com expired"
		mw, _ := idem.New(idem.Config{Store: idem.NewMemory(), Logger: slog.New(slog.NewTextHandler(&logs, nil)),
			Scope: func(*http.Request) (string, error) { return "", errors.New(secret) }})
		req := httptest.NewRequest(http.MethodPost, "/orders", strings.NewReader("{}"))
		req.Header.Set("Idempotency-Key", "k1")
		rec := httptest.NewRecorder()
		mw.Wrap(&orderHandler{}).ServeHTTP(rec, req)
		if rec.Code != 401 || strings.Contains(rec.Body.String(), "alice") || strings.Contains(rec.Body.String(), "8f3a") {
			t.Errorf("scope error: %d %s", rec.Code, rec.Body.String())
		}
		if !strings.Contains(logs.String(), secret) {
			t.Errorf("the scope's error is not in the log: %s", logs.String())
		}
	})
}

// TestManyWaiters: 200 requests wait on one key in progress; the store is read at most 20
// times a second for all of them, and they all get the first request's response.
func TestManyWaiters(t *testing.T) {
	const waiters = 200
	for _, st := range stores(t) {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			cs := &countingStore{Store: st.store}
			h := &orderHandler{gate: make(chan struct{}), started: make(chan struct{}, 1)}
			mw, err := idem.New(idem.Config{Store: cs, Scope: tenantScope, Wait: time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			key := uniqueKey(t, "w")
			serve := func() *httptest.ResponseRecorder {
				req := httptest.NewRequest(http.MethodPost, "/orders", strings.NewReader(`{"cents":5}`))
				req.Header.Set("Idempotency-Key", key)
				req.Header.Set("X-Tenant", "acme")
				rec := httptest.NewRecorder()
				mw.Wrap(h).ServeHTTP(rec, req)
				return rec
			}
			var wg sync.WaitGroup
			results := make([]*httptest.ResponseRecorder, waiters+1)
			wg.Go(func() { results[0] = serve() })
			<-h.started
			for i := 1; i <= waiters; i++ {
				wg.Go(func() { results[i] = serve() })
			}
			// Every waiter has claimed (and lost to the first request): all are waiting.
			for deadline := time.Now().Add(time.Minute); ; {
				if c, _ := cs.counts(); c >= waiters+1 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("the waiters never all claimed")
				}
				time.Sleep(5 * time.Millisecond)
			}
			_, before := cs.counts()
			start := time.Now()
			time.Sleep(1500 * time.Millisecond) // the window the reads are counted over
			_, after := cs.counts()
			elapsed := time.Since(start)
			close(h.gate)
			wg.Wait()
			rate := float64(after-before) / elapsed.Seconds()
			t.Logf("%d waiters: %d store reads in %v (%.1f/s)", waiters, after-before, elapsed.Round(time.Millisecond), rate)
			if rate > 20 {
				t.Errorf("%.1f store reads a second while %d requests waited, want at most 20", rate, waiters)
			}
			for i, r := range results {
				if r.Code != 201 || r.Body.String() != results[0].Body.String() {
					t.Fatalf("request %d: %d %s, first: %s", i, r.Code, r.Body.String(), results[0].Body.String())
				}
			}
			if h.runs.Load() != 1 {
				t.Errorf("handler ran %d times", h.runs.Load())
			}
		})
	}
}
