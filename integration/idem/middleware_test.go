package idem_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idgen/idgen/runtime/idem"
)

type namedStore struct {
	name  string
	store idem.Store
	// open, where set, returns another store on store's data through a connection of its
	// own, and a function that closes that connection: a store that stops answering.
	open func(tb testing.TB) (idem.Store, func())
}

// stores returns every store the middleware tests and benchmarks run on: memory here, the
// SQL and Redis stores through extraStores, which their test files append to in init.
func stores(tb testing.TB) []namedStore {
	out := []namedStore{{name: "memory", store: idem.NewMemory()}}
	for _, add := range extraStores {
		out = append(out, add(tb)...)
	}
	return out
}

// extraStores are added by the SQL and Redis store tests (func init in their _test files).
var extraStores []func(tb testing.TB) []namedStore

// orderHandler makes "orders": it counts its runs and answers with a new order number.
type orderHandler struct {
	runs  atomic.Int64
	delay time.Duration
	fail  atomic.Int64 // answer 500 this many times
	panic atomic.Bool
	// gate, when set, holds every run until it is closed, after signalling started.
	gate    chan struct{}
	started chan struct{}
}

func (h *orderHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := h.runs.Add(1)
	if h.gate != nil {
		select {
		case h.started <- struct{}{}:
		default:
		}
		<-h.gate
	}
	if h.delay > 0 {
		time.Sleep(h.delay)
	}
	if h.panic.Load() {
		panic("handler crashed")
	}
	if h.fail.Load() > 0 {
		h.fail.Add(-1)
		http.Error(w, "backend down", http.StatusInternalServerError)
		return
	}
	body, _ := io.ReadAll(r.Body)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Location", fmt.Sprintf("/orders/%d", n))
	w.WriteHeader(http.StatusCreated)
	fmt.Fprintf(w, `{"order":%d,"tenant":%q,"request":%s}`, n, r.Header.Get("X-Tenant"), body)
}

// discard is the logger of tests that provoke errors on purpose.
var discard = slog.New(slog.DiscardHandler)

func newServer(t *testing.T, cfg idem.Config, h http.Handler) *httptest.Server {
	t.Helper()
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler) // the tests provoke errors on purpose
	}
	mw, err := idem.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(mw.Wrap(h))
	t.Cleanup(srv.Close)
	return srv
}

func post(t *testing.T, url, key, tenant, body string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	if tenant != "" {
		req.Header.Set("X-Tenant", tenant)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func tenantScope(r *http.Request) (string, error) {
	t := r.Header.Get("X-Tenant")
	if t == "" {
		return "", errors.New("no X-Tenant")
	}
	return t, nil
}

// uniqueKey returns a key of the test's own. Commas in the test's name are dropped: a bare
// key with a comma is a list, which the middleware refuses.
func uniqueKey(t *testing.T, s string) string {
	return fmt.Sprintf("%s-%s-%d", strings.ReplaceAll(t.Name(), ",", ""), s, time.Now().UnixNano())
}

func TestMiddleware(t *testing.T) {
	for _, st := range stores(t) {
		t.Run(st.name, func(t *testing.T) {
			t.Run("100 identical requests, one run", func(t *testing.T) {
				h := &orderHandler{delay: 50 * time.Millisecond}
				srv := newServer(t, idem.Config{Store: st.store, Scope: tenantScope, Wait: 10 * time.Second}, h)
				key := uniqueKey(t, "k")
				var wg sync.WaitGroup
				bodies := make([]string, 100)
				replayed := atomic.Int64{}
				for i := range 100 {
					wg.Go(func() {
						resp, body := post(t, srv.URL+"/orders", key, "acme", `{"cents":100}`)
						if resp.StatusCode != http.StatusCreated {
							t.Errorf("status %d: %s", resp.StatusCode, body)
						}
						if resp.Header.Get(idem.ReplayedHeader) == "true" {
							replayed.Add(1)
						}
						bodies[i] = body
					})
				}
				wg.Wait()
				if h.runs.Load() != 1 {
					t.Fatalf("handler ran %d times", h.runs.Load())
				}
				for i, b := range bodies {
					if b != bodies[0] {
						t.Fatalf("response %d: %s, response 0: %s", i, b, bodies[0])
					}
				}
				if replayed.Load() != 99 {
					t.Errorf("%d responses marked replayed, want 99", replayed.Load())
				}
			})
			t.Run("panic and 5xx release the key, 4xx keeps it", func(t *testing.T) {
				h := &orderHandler{}
				mw, _ := idem.New(idem.Config{Store: st.store, Scope: tenantScope})
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					defer func() { recover() }() // the test server survives the handler's panic
					mw.Wrap(h).ServeHTTP(w, r)
				}))
				defer srv.Close()
				key := uniqueKey(t, "p")
				h.panic.Store(true)
				post(t, srv.URL, key, "acme", `{}`)
				h.panic.Store(false)
				h.fail.Store(1)
				if resp, _ := post(t, srv.URL, key, "acme", `{}`); resp.StatusCode != 500 {
					t.Fatalf("after the panic: %d", resp.StatusCode)
				}
				if resp, _ := post(t, srv.URL, key, "acme", `{}`); resp.StatusCode != 201 || h.runs.Load() != 3 {
					t.Fatalf("after the 500: %d, %d runs", resp.StatusCode, h.runs.Load())
				}
				// A 4xx is kept by default.
				bad := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.Error(w, "no such product", 404) })
				srv2 := newServer(t, idem.Config{Store: st.store, Scope: tenantScope}, bad)
				k2 := uniqueKey(t, "4xx")
				post(t, srv2.URL, k2, "acme", `{}`)
				if resp, _ := post(t, srv2.URL, k2, "acme", `{}`); resp.StatusCode != 404 || resp.Header.Get(idem.ReplayedHeader) != "true" {
					t.Fatalf("4xx not kept: %d %q", resp.StatusCode, resp.Header.Get(idem.ReplayedHeader))
				}
			})
			t.Run("tenants", func(t *testing.T) {
				h := &orderHandler{}
				srv := newServer(t, idem.Config{Store: st.store, Scope: tenantScope}, h)
				key := uniqueKey(t, "shared")
				_, a := post(t, srv.URL, key, "acme", `{"cents":1}`)
				_, b := post(t, srv.URL, key, "globex", `{"cents":1}`)
				if h.runs.Load() != 2 || a == b || !strings.Contains(b, `"tenant":"globex"`) {
					t.Fatalf("one tenant's key served another: %s / %s (%d runs)", a, b, h.runs.Load())
				}
				if resp, _ := post(t, srv.URL, key, "", `{}`); resp.StatusCode != 401 {
					t.Fatalf("no tenant: %d", resp.StatusCode)
				}
			})
			t.Run("payload mismatch and in flight", func(t *testing.T) {
				h := &orderHandler{gate: make(chan struct{}), started: make(chan struct{}, 1)}
				srv := newServer(t, idem.Config{Store: st.store, Scope: tenantScope, FingerprintHeaders: []string{"X-Currency"}}, h)
				key := uniqueKey(t, "m")
				done := make(chan struct{})
				go func() { post(t, srv.URL, key, "acme", `{"cents":1}`); close(done) }()
				<-h.started // the first request is in the handler, holding the key
				if resp, body := post(t, srv.URL, key, "acme", `{"cents":1}`); resp.StatusCode != 409 || resp.Header.Get("Content-Type") != "application/problem+json" || resp.Header.Get("Retry-After") == "" {
					t.Errorf("duplicate in flight: %d %s", resp.StatusCode, body)
				}
				close(h.gate)
				<-done
				resp, body := post(t, srv.URL, key, "acme", `{"cents":2}`)
				var p map[string]any
				json.Unmarshal([]byte(body), &p)
				if resp.StatusCode != 422 || p["status"] != float64(422) {
					t.Errorf("other payload: %d %s", resp.StatusCode, body)
				}
			})
			t.Run("a dead holder's key is taken after the lock timeout", func(t *testing.T) {
				h := &orderHandler{}
				srv := newServer(t, idem.Config{Store: st.store, Scope: tenantScope, LockTimeout: 600 * time.Millisecond}, h)
				key := uniqueKey(t, "dead")
				// A process claimed the key for this exact request and was killed: its
				// middleware claimed, and nothing it did after reached the store. Whether a
				// request is refused while the claim holds is judged by the claim's own end:
				// a request that answers before it must get 409, and the next one after it
				// must run, however slow the machine.
				var scoped string
				dying, _ := idem.New(idem.Config{Store: deadAfterClaim{st.store}, Scope: tenantScope, LockTimeout: 600 * time.Millisecond})
				r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{}`))
				r.Header.Set("Idempotency-Key", key)
				r.Header.Set("X-Tenant", "acme")
				dying.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					k, _ := idem.KeyFrom(r.Context())
					scoped = k.Scoped
				})).ServeHTTP(httptest.NewRecorder(), r)
				rec, err := st.store.Get(context.Background(), scoped)
				if err != nil || rec.State != idem.InProgress {
					t.Fatalf("the dead process's claim: %+v %v", rec, err)
				}
				resp, _ := post(t, srv.URL+"/", key, "acme", `{}`)
				if answered := time.Now(); answered.Before(rec.LockedUntil) && resp.StatusCode != 409 {
					t.Fatalf("while the dead claim holds: %d", resp.StatusCode)
				}
				time.Sleep(time.Until(rec.LockedUntil))
				if resp, _ := post(t, srv.URL+"/", key, "acme", `{}`); resp.StatusCode != 201 || h.runs.Load() != 1 {
					t.Fatalf("after the lock timeout: %d, %d runs", resp.StatusCode, h.runs.Load())
				}
			})
		})
	}
}

func TestMiddlewareKeys(t *testing.T) {
	h := &orderHandler{}
	cfg := idem.Config{Store: idem.NewMemory(), Scope: idem.SingleTenant, Require: func(r *http.Request) bool { return r.URL.Path == "/orders" }}
	srv := newServer(t, cfg, h)
	mw, _ := idem.New(cfg)
	for _, tc := range []struct {
		key, path string
		status    int
	}{
		{"", "/orders", 400},
		{"", "/other", 201},
		{strings.Repeat("k", 256), "/orders", 400},
		{"bad\x01key", "/orders", 400},
		{"ok-key", "/orders", 201},
	} {
		// Through the handler directly: Go's client refuses control characters in headers.
		req := httptest.NewRequest(http.MethodPost, tc.path, strings.NewReader("{}"))
		req.Header["Idempotency-Key"] = []string{tc.key}
		rec := httptest.NewRecorder()
		mw.Wrap(h).ServeHTTP(rec, req)
		if rec.Code != tc.status {
			t.Errorf("key %q on %s: %d, want %d", tc.key, tc.path, rec.Code, tc.status)
		}
		if tc.status == 400 && rec.Header().Get("Content-Type") != "application/problem+json" {
			t.Errorf("key %q: 400 without problem+json", tc.key)
		}
	}
	// X-Request-ID is not a key unless asked for: proxies forward it to every call made
	// while serving one request.
	postID := func(url, id string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, url+"/orders", strings.NewReader("{}"))
		req.Header.Set("X-Request-ID", id)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	if resp := postID(srv.URL, "alias-1"); resp.StatusCode != 400 {
		t.Errorf("X-Request-ID alone satisfied Require: %d", resp.StatusCode)
	}
	alias := newServer(t, idem.Config{Store: idem.NewMemory(), Scope: idem.SingleTenant, KeyHeaders: []string{"Idempotency-Key", "X-Request-ID"}}, h)
	before := h.runs.Load()
	postID(alias.URL, "alias-1")
	if resp := postID(alias.URL, "alias-1"); resp.StatusCode != 201 || resp.Header.Get(idem.ReplayedHeader) != "true" || h.runs.Load() != before+1 {
		t.Errorf("X-Request-ID as a chosen key header: %d, %d runs", resp.StatusCode, h.runs.Load()-before)
	}
	// GET passes through.
	if resp, _ := http.Get(srv.URL + "/orders"); resp.StatusCode != 201 {
		t.Errorf("GET: %d", resp.StatusCode)
	}
	if _, err := idem.New(idem.Config{Scope: idem.SingleTenant}); err == nil {
		t.Error("New without a store")
	}
}

func TestOnce(t *testing.T) {
	for _, st := range stores(t) {
		t.Run(st.name, func(t *testing.T) {
			ctx := context.Background()
			key := uniqueKey(t, "msg")
			runs := 0
			fn := func(context.Context) error { runs++; return nil }
			for range 3 {
				if err := idem.Once(ctx, st.store, key, fn, idem.OnceOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			if runs != 1 {
				t.Fatalf("ran %d times", runs)
			}
			k2 := uniqueKey(t, "fail")
			boom := errors.New("boom")
			if err := idem.Once(ctx, st.store, k2, func(context.Context) error { return boom }, idem.OnceOptions{}); !errors.Is(err, boom) {
				t.Fatal(err)
			}
			if err := idem.Once(ctx, st.store, k2, fn, idem.OnceOptions{}); err != nil || runs != 2 {
				t.Fatalf("redelivery after an error: %v, %d runs", err, runs)
			}
			k3 := uniqueKey(t, "held")
			st.store.Claim(ctx, idem.OnceKey(k3), "", time.Minute)
			if err := idem.Once(ctx, st.store, k3, fn, idem.OnceOptions{}); !errors.Is(err, idem.ErrInProgress) {
				t.Fatalf("held elsewhere: %v", err)
			}
		})
	}
}

// deadAfterClaim is the store of a process killed right after its claims: they reach the
// store, and nothing after them does.
type deadAfterClaim struct{ idem.Store }

func (deadAfterClaim) Complete(context.Context, string, string, idem.Response, time.Duration) error {
	return nil
}
func (deadAfterClaim) Release(context.Context, string, string) error              { return nil }
func (deadAfterClaim) Renew(context.Context, string, string, time.Duration) error { return nil }

// TestOnceNamespace: one store serves the middleware and Once, and message IDs shaped
// like the key the middleware stores a tenant's request under (and like the key the
// tenant sends) do not meet the tenant's requests: a message done first does not make the
// tenant's first POST with that key a 422 or a replay, and a request done first does not
// make the message a duplicate.
func TestOnceNamespace(t *testing.T) {
	for _, st := range stores(t) {
		t.Run(st.name, func(t *testing.T) {
			ctx := context.Background()
			// The key the middleware stores a request of acme under, learnt on a store of
			// its own.
			storedAs := func(key string) string {
				learn := newSpy(idem.NewMemory())
				post(t, newServer(t, idem.Config{Store: learn, Scope: tenantScope}, &orderHandler{}).URL, key, "acme", `{}`)
				return (<-learn.claims).key
			}
			runs := 0
			run := func(context.Context) error { runs++; return nil }
			spy := newSpy(st.store)
			h := &orderHandler{}
			srv := newServer(t, idem.Config{Store: spy, Scope: tenantScope}, h)

			// The messages first.
			k1 := uniqueKey(t, "order")
			s1 := storedAs(k1)
			for _, msg := range []string{s1, k1} {
				if err := idem.Once(ctx, st.store, msg, run, idem.OnceOptions{}); err != nil {
					t.Fatalf("Once(%q): %v", msg, err)
				}
			}
			if runs != 2 {
				t.Fatalf("%d runs of two new messages", runs)
			}
			resp, body := post(t, srv.URL, k1, "acme", `{"cents":1}`)
			if resp.StatusCode != http.StatusCreated || resp.Header.Get(idem.ReplayedHeader) != "" || h.runs.Load() != 1 {
				t.Fatalf("acme's first POST with key %q after a message %q: %d replayed=%q %s, %d runs",
					k1, s1, resp.StatusCode, resp.Header.Get(idem.ReplayedHeader), body, h.runs.Load())
			}
			if c := <-spy.claims; c.key != s1 {
				t.Errorf("the request was stored as %q, on a store of its own as %q", c.key, s1)
			}
			if resp, _ := post(t, srv.URL, k1, "acme", `{"cents":1}`); resp.Header.Get(idem.ReplayedHeader) != "true" || h.runs.Load() != 1 {
				t.Errorf("the retry of the POST: %d replayed=%q, %d runs", resp.StatusCode, resp.Header.Get(idem.ReplayedHeader), h.runs.Load())
			}

			// The request first.
			k2 := uniqueKey(t, "order")
			if resp, _ := post(t, srv.URL, k2, "acme", `{"cents":2}`); resp.StatusCode != http.StatusCreated {
				t.Fatalf("POST: %d", resp.StatusCode)
			}
			s2 := (<-spy.claims).key
			for _, msg := range []string{s2, k2} {
				if err := idem.Once(ctx, st.store, msg, run, idem.OnceOptions{}); err != nil {
					t.Fatalf("Once(%q): %v", msg, err)
				}
			}
			if runs != 4 {
				t.Errorf("messages %q and %q after acme's request: %d runs, want 2", s2, k2, runs-2)
			}
		})
	}
}
