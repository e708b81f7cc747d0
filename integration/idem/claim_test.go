package idem_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idgen/idgen/runtime/idem"
)

// testLock is the LockTimeout of the renewal tests: long enough that a renewal on a loaded
// machine (an SQLite fsync under -race) lands well inside it.
const testLock = 600 * time.Millisecond

// spyStore passes every call to a real store and reports each claim it won.
type spyStore struct {
	idem.Store
	claims chan claimed
}

type claimed struct{ key, token string }

func newSpy(s idem.Store) *spyStore { return &spyStore{Store: s, claims: make(chan claimed, 16)} }

func (s *spyStore) Claim(ctx context.Context, key, fp string, lock time.Duration) (string, *idem.Record, error) {
	tok, held, err := s.Store.Claim(ctx, key, fp, lock)
	if tok != "" {
		s.claims <- claimed{key, tok}
	}
	return tok, held, err
}

// slowWork is a handler (and an Once function) that runs for d unless its context ends
// first, and records how many runs overlap and whether any was cancelled.
type slowWork struct {
	d         time.Duration
	runs, cur atomic.Int64
	maxCur    atomic.Int64
	started   chan struct{}
	cause     chan error // the context's cause, when a run was cancelled
}

func newSlowWork(d time.Duration) *slowWork {
	return &slowWork{d: d, started: make(chan struct{}, 16), cause: make(chan error, 16)}
}

func (h *slowWork) do(ctx context.Context) error {
	h.runs.Add(1)
	n := h.cur.Add(1)
	defer h.cur.Add(-1)
	for {
		m := h.maxCur.Load()
		if n <= m || h.maxCur.CompareAndSwap(m, n) {
			break
		}
	}
	h.started <- struct{}{}
	t := time.NewTimer(h.d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		h.cause <- context.Cause(ctx)
		return context.Cause(ctx)
	}
}

func (h *slowWork) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := h.do(r.Context()); err != nil {
		// What a handler that did not notice would answer: the middleware must not
		// store it.
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, "cancelled")
		return
	}
	w.WriteHeader(http.StatusCreated)
	io.WriteString(w, "done")
}

// lockedPast waits until the claim of key is locked past until: a renewal extended it.
func lockedPast(t *testing.T, s idem.Store, key string, until time.Time) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		rec, err := s.Get(context.Background(), key)
		if err == nil && rec.State == idem.InProgress && rec.LockedUntil.After(until) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("the claim of %q was never renewed past %v", key, until)
}

// TestLongWork runs a handler for 3 LockTimeouts and sends the same request while it runs,
// after the first claim's lock would have lapsed: the claim is renewed, so the second
// request gets 409 (Wait 0) or waits and gets the replay (Wait > 0), and the handler runs
// once, never twice at a time. The same for Once.
func TestLongWork(t *testing.T) {
	for _, st := range stores(t) {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			for _, wait := range []time.Duration{0, 30 * time.Second} {
				t.Run("wait "+wait.String(), func(t *testing.T) {
					h := newSlowWork(3 * testLock)
					spy := newSpy(st.store)
					srv := newServer(t, idem.Config{Store: spy, Scope: tenantScope, LockTimeout: testLock, Wait: wait}, h)
					key := uniqueKey(t, "long")
					first := make(chan string, 1)
					go func() { _, b := post(t, srv.URL, key, "acme", `{}`); first <- b }()
					c := <-spy.claims
					firstLock := time.Now().Add(testLock)
					<-h.started
					lockedPast(t, st.store, c.key, firstLock)
					time.Sleep(time.Until(firstLock)) // the unrenewed claim would be over now
					resp, body := post(t, srv.URL, key, "acme", `{}`)
					if wait == 0 && resp.StatusCode != http.StatusConflict {
						t.Errorf("second request during the work: %d %s, want 409", resp.StatusCode, body)
					}
					if wait > 0 && (resp.StatusCode != http.StatusCreated || body != "done" || resp.Header.Get(idem.ReplayedHeader) != "true") {
						t.Errorf("waiting request: %d %q replayed=%q, want the replay of 201 done", resp.StatusCode, body, resp.Header.Get(idem.ReplayedHeader))
					}
					if b := <-first; b != "done" {
						t.Errorf("first request: %q", b)
					}
					if h.runs.Load() != 1 || h.maxCur.Load() != 1 || len(h.cause) != 0 {
						t.Errorf("%d runs, %d at once, %d cancelled; want 1, 1, 0", h.runs.Load(), h.maxCur.Load(), len(h.cause))
					}
				})
			}
			t.Run("Once", func(t *testing.T) {
				w := newSlowWork(3 * testLock)
				spy := newSpy(st.store)
				key := uniqueKey(t, "once")
				opts := idem.OnceOptions{LockTimeout: testLock}
				ctx := context.Background()
				first := make(chan error, 1)
				go func() { first <- idem.Once(ctx, spy, key, w.do, opts) }()
				c := <-spy.claims
				firstLock := time.Now().Add(testLock)
				<-w.started
				lockedPast(t, st.store, c.key, firstLock)
				time.Sleep(time.Until(firstLock))
				if err := idem.Once(ctx, st.store, key, w.do, opts); !errors.Is(err, idem.ErrInProgress) {
					t.Errorf("redelivery during the work: %v, want ErrInProgress", err)
				}
				if err := <-first; err != nil {
					t.Fatal(err)
				}
				if err := idem.Once(ctx, st.store, key, w.do, opts); err != nil {
					t.Errorf("redelivery after the work: %v", err)
				}
				if w.runs.Load() != 1 || w.maxCur.Load() != 1 {
					t.Errorf("%d runs, %d at once; want 1, 1", w.runs.Load(), w.maxCur.Load())
				}
			})
		})
	}
}

// TestClaimLost takes a running handler's claim away, by hand (released and claimed by a
// thief, as a holder presumed dead would lose it) and by stopping the store the handler's
// middleware renews through: the handler's context is cancelled with ErrClaimLost, the
// client gets 503, and nothing is stored.
func TestClaimLost(t *testing.T) {
	for _, st := range stores(t) {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			t.Run("stolen", func(t *testing.T) {
				h := newSlowWork(time.Minute)
				spy := newSpy(st.store)
				srv := newServer(t, idem.Config{Store: spy, Scope: tenantScope, LockTimeout: testLock}, h)
				key := uniqueKey(t, "stolen")
				type answer struct {
					resp *http.Response
					body string
				}
				got := make(chan answer, 1)
				go func() { r, b := post(t, srv.URL, key, "acme", `{}`); got <- answer{r, b} }()
				c := <-spy.claims
				<-h.started
				if err := st.store.Release(ctx, c.key, c.token); err != nil {
					t.Fatal(err)
				}
				if tok, _, err := st.store.Claim(ctx, c.key, "thief", time.Minute); err != nil || tok == "" {
					t.Fatalf("the thief's claim: %q %v", tok, err)
				}
				if cause := <-h.cause; !errors.Is(cause, idem.ErrClaimLost) {
					t.Errorf("the handler's context ended with %v, want ErrClaimLost", cause)
				}
				a := <-got
				if a.resp.StatusCode != http.StatusServiceUnavailable || a.resp.Header.Get("Content-Type") != "application/problem+json" || strings.Contains(a.body, "cancelled") {
					t.Errorf("client got %d %q", a.resp.StatusCode, a.body)
				}
				rec, err := st.store.Get(ctx, c.key)
				if err != nil || rec.State != idem.InProgress || rec.Fingerprint != "thief" {
					t.Errorf("after the loss the record is %+v, %v; want the thief's claim", rec, err)
				}
			})
			t.Run("Once stolen", func(t *testing.T) {
				w := newSlowWork(time.Minute)
				spy := newSpy(st.store)
				key := uniqueKey(t, "once-stolen")
				done := make(chan error, 1)
				go func() { done <- idem.Once(ctx, spy, key, w.do, idem.OnceOptions{LockTimeout: testLock}) }()
				c := <-spy.claims
				<-w.started
				st.store.Release(ctx, c.key, c.token)
				st.store.Claim(ctx, c.key, "thief", time.Minute)
				if err := <-done; !errors.Is(err, idem.ErrClaimLost) {
					t.Errorf("Once returned %v, want ErrClaimLost", err)
				}
				if rec, err := st.store.Get(ctx, idem.OnceKey(key)); err != nil || rec.State != idem.InProgress || rec.Fingerprint != "thief" {
					t.Errorf("after the loss the record is %+v, %v", rec, err)
				}
			})
			if st.open == nil {
				return
			}
			t.Run("store stopped", func(t *testing.T) {
				s, stop := st.open(t)
				h := newSlowWork(time.Minute)
				spy := newSpy(s)
				srv := newServer(t, idem.Config{Store: spy, Scope: tenantScope, LockTimeout: testLock}, h)
				key := uniqueKey(t, "stopped")
				got := make(chan int, 1)
				go func() { r, _ := post(t, srv.URL, key, "acme", `{}`); got <- r.StatusCode }()
				c := <-spy.claims
				<-h.started
				stop()
				if cause := <-h.cause; !errors.Is(cause, idem.ErrClaimLost) {
					t.Errorf("the handler's context ended with %v, want ErrClaimLost", cause)
				}
				if code := <-got; code != http.StatusServiceUnavailable {
					t.Errorf("client got %d, want 503", code)
				}
				// Seen through a live connection: the claim was never completed.
				if rec, err := st.store.Get(ctx, c.key); err == nil && rec.State == idem.Completed {
					t.Errorf("a response was stored: %+v", rec)
				}
			})
		})
	}
}

// TestHoldShortWork: work shorter than LockTimeout/3 renews nothing.
func TestHoldShortWork(t *testing.T) {
	var renews atomic.Int64
	s := &countingStore{Store: idem.NewMemory(), renews: &renews}
	mw, err := idem.New(idem.Config{Store: s, Scope: idem.SingleTenant})
	if err != nil {
		t.Fatal(err)
	}
	h := mw.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(201) }))
	for i := range 100 {
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader("{}"))
		req.Header.Set("Idempotency-Key", "k"+string(rune('a'+i%26))+strings.Repeat("x", i))
		h.ServeHTTP(httptest.NewRecorder(), req)
	}
	if n := renews.Load(); n != 0 {
		t.Errorf("%d renewals for work far shorter than the lock", n)
	}
}

// countingStore counts the calls that reach a store.
type countingStore struct {
	idem.Store
	mu                            sync.Mutex
	claims, gets, completes, rels int
	renews                        *atomic.Int64
}

func (s *countingStore) Claim(ctx context.Context, key, fp string, lock time.Duration) (string, *idem.Record, error) {
	s.mu.Lock()
	s.claims++
	s.mu.Unlock()
	return s.Store.Claim(ctx, key, fp, lock)
}

func (s *countingStore) Get(ctx context.Context, key string) (*idem.Record, error) {
	s.mu.Lock()
	s.gets++
	s.mu.Unlock()
	return s.Store.Get(ctx, key)
}

func (s *countingStore) Complete(ctx context.Context, key, token string, resp idem.Response, ttl time.Duration) error {
	s.mu.Lock()
	s.completes++
	s.mu.Unlock()
	return s.Store.Complete(ctx, key, token, resp, ttl)
}

func (s *countingStore) Release(ctx context.Context, key, token string) error {
	s.mu.Lock()
	s.rels++
	s.mu.Unlock()
	return s.Store.Release(ctx, key, token)
}

func (s *countingStore) Renew(ctx context.Context, key, token string, lock time.Duration) error {
	if s.renews != nil {
		s.renews.Add(1)
	}
	return s.Store.Renew(ctx, key, token, lock)
}

func (s *countingStore) counts() (claims, gets int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.claims, s.gets
}

// failingRenewals is a store whose renewals fail, as they do for a process that cannot
// reach its store for a while, while its other calls pass: the store is back by the time
// the work ends.
type failingRenewals struct {
	idem.Store
	failed atomic.Int64
}

func (s *failingRenewals) Renew(ctx context.Context, key, token string, lock time.Duration) error {
	s.failed.Add(1)
	return errors.New("dial tcp 127.0.0.1:1: connect: connection refused")
}

// TestRenewalsFailed: renewals fail from the claim on, so the work's context is cancelled
// (ErrClaimLost) before the claim could lapse, and the work finishes anyway (a commit was
// in flight). Nobody took the key, so its outcome is recorded with the claim's token: the
// client gets the handler's response, a retry replays it, and the handler ran once; a
// handler that failed releases the key, and its retry runs. Once: the function returned
// nil, so the key is done, and the redelivery does not run it. But when another caller
// took the key after the claim lapsed, nothing is stored: the client gets 503, Once
// returns ErrClaimLost, and the taker's claim stands. (Before, the result was thrown away
// whenever renewals failed: 503, and the retry ran the work again; Once ran fn twice.)
func TestRenewalsFailed(t *testing.T) {
	for _, st := range stores(t) {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			// finishing is a handler whose work ends when its context does: it answers
			// status unless it was told to wait for gate first.
			type finishing struct {
				runs   atomic.Int64
				causes chan error
			}
			handler := func(f *finishing, status int, gate chan struct{}) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					f.runs.Add(1)
					<-r.Context().Done()
					f.causes <- context.Cause(r.Context())
					if gate != nil {
						<-gate
					}
					w.WriteHeader(status)
					io.WriteString(w, "done")
				}
			}
			t.Run("kept", func(t *testing.T) {
				f := &finishing{causes: make(chan error, 4)}
				s := &failingRenewals{Store: st.store}
				srv := newServer(t, idem.Config{Store: s, Scope: tenantScope, LockTimeout: testLock}, handler(f, http.StatusCreated, nil))
				key := uniqueKey(t, "kept")
				resp, body := post(t, srv.URL, key, "acme", `{}`)
				if cause := <-f.causes; !errors.Is(cause, idem.ErrClaimLost) {
					t.Errorf("the handler's context ended with %v, want ErrClaimLost", cause)
				}
				if resp.StatusCode != http.StatusCreated || body != "done" || resp.Header.Get(idem.WarningHeader) != "" {
					t.Errorf("client got %d %q (warning %q); want the handler's 201 done", resp.StatusCode, body, resp.Header.Get(idem.WarningHeader))
				}
				resp, body = post(t, srv.URL, key, "acme", `{}`)
				if resp.StatusCode != http.StatusCreated || body != "done" || resp.Header.Get(idem.ReplayedHeader) != "true" {
					t.Errorf("retry got %d %q replayed=%q; want the replay of 201 done", resp.StatusCode, body, resp.Header.Get(idem.ReplayedHeader))
				}
				if f.runs.Load() != 1 || s.failed.Load() == 0 {
					t.Errorf("%d runs, %d failed renewals; want 1 run after failed renewals", f.runs.Load(), s.failed.Load())
				}
			})
			t.Run("handler failed", func(t *testing.T) {
				f := &finishing{causes: make(chan error, 4)}
				s := &failingRenewals{Store: st.store}
				srv := newServer(t, idem.Config{Store: s, Scope: tenantScope, LockTimeout: testLock}, handler(f, http.StatusBadGateway, nil))
				key := uniqueKey(t, "failed")
				if resp, body := post(t, srv.URL, key, "acme", `{}`); resp.StatusCode != http.StatusBadGateway || body != "done" {
					t.Errorf("client got %d %q; want the handler's 502", resp.StatusCode, body)
				}
				// Released: the retry runs at once (it would get 409 while the claim held).
				if resp, _ := post(t, srv.URL, key, "acme", `{}`); resp.StatusCode != http.StatusBadGateway || f.runs.Load() != 2 {
					t.Errorf("retry: %d after %d runs; want a second run", resp.StatusCode, f.runs.Load())
				}
			})
			t.Run("taken", func(t *testing.T) {
				f := &finishing{causes: make(chan error, 4)}
				spy := newSpy(&failingRenewals{Store: st.store})
				gate := make(chan struct{})
				srv := newServer(t, idem.Config{Store: spy, Scope: tenantScope, LockTimeout: testLock}, handler(f, http.StatusCreated, gate))
				key := uniqueKey(t, "taken")
				type answer struct {
					resp *http.Response
					body string
				}
				got := make(chan answer, 1)
				go func() { r, b := post(t, srv.URL, key, "acme", `{}`); got <- answer{r, b} }()
				c := <-spy.claims
				<-f.causes
				takeAfterLapse(t, st.store, c.key)
				close(gate)
				a := <-got
				if a.resp.StatusCode != http.StatusServiceUnavailable || strings.Contains(a.body, "done") {
					t.Errorf("client got %d %q; want 503", a.resp.StatusCode, a.body)
				}
				if rec, err := st.store.Get(ctx, c.key); err != nil || rec.State != idem.InProgress || rec.Fingerprint != "thief" {
					t.Errorf("the record is %+v, %v; want the thief's claim", rec, err)
				}
			})
			t.Run("Once kept", func(t *testing.T) {
				s := &failingRenewals{Store: st.store}
				key := uniqueKey(t, "once-kept")
				opts := idem.OnceOptions{LockTimeout: testLock}
				var runs atomic.Int64
				fn := func(ctx context.Context) error {
					runs.Add(1)
					<-ctx.Done()
					return nil // finished all the same
				}
				if err := idem.Once(ctx, s, key, fn, opts); err != nil {
					t.Errorf("Once: %v; want nil, the key marked done", err)
				}
				if err := idem.Once(ctx, s, key, fn, opts); err != nil || runs.Load() != 1 {
					t.Errorf("redelivery: %v, fn ran %d times; want nil and 1", err, runs.Load())
				}
			})
			t.Run("Once taken", func(t *testing.T) {
				spy := newSpy(&failingRenewals{Store: st.store})
				key := uniqueKey(t, "once-taken")
				cancelled, gate := make(chan struct{}), make(chan struct{})
				fn := func(ctx context.Context) error {
					<-ctx.Done()
					close(cancelled)
					<-gate
					return nil
				}
				done := make(chan error, 1)
				go func() { done <- idem.Once(ctx, spy, key, fn, idem.OnceOptions{LockTimeout: testLock}) }()
				c := <-spy.claims
				<-cancelled
				takeAfterLapse(t, st.store, c.key)
				close(gate)
				if err := <-done; !errors.Is(err, idem.ErrClaimLost) {
					t.Errorf("Once: %v; want ErrClaimLost", err)
				}
				if rec, err := st.store.Get(ctx, c.key); err != nil || rec.State != idem.InProgress || rec.Fingerprint != "thief" {
					t.Errorf("the record is %+v, %v; want the thief's claim", rec, err)
				}
			})
		})
	}
}

// takeAfterLapse claims key as "thief" as soon as its claim has lapsed.
func takeAfterLapse(t *testing.T, s idem.Store, key string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		tok, _, err := s.Claim(context.Background(), key, "thief", time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if tok != "" {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("the claim of %q never lapsed", key)
}
