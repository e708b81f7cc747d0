package idem_test

import (
	"context"
	"errors"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idgen/idgen/runtime/idem"
)

// deafStore is a store whose Renew, once armed, blocks until released and ignores its
// context, as go-redis does without ContextTimeoutEnabled when the network stalls.
type deafStore struct {
	idem.Store
	armed   atomic.Bool
	blocked chan struct{} // closed when a Renew is blocked
	release chan struct{}
}

func (s *deafStore) Renew(ctx context.Context, key, token string, lock time.Duration) error {
	if s.armed.CompareAndSwap(true, false) {
		close(s.blocked)
		<-s.release
	}
	return s.Store.Renew(ctx, key, token, lock)
}

// TestRenewalThatNeverAnswers: a renewal stuck in a store that ignores its deadline still
// cancels the work before the claim could lapse: while the store call is blocked.
func TestRenewalThatNeverAnswers(t *testing.T) {
	s := &deafStore{Store: idem.NewMemory(), blocked: make(chan struct{}), release: make(chan struct{})}
	s.armed.Store(true)
	defer close(s.release)
	w := newSlowWork(time.Minute)
	done := make(chan error, 1)
	go func() {
		done <- idem.Once(context.Background(), s, "deaf", w.do, idem.OnceOptions{LockTimeout: testLock})
	}()
	<-w.started
	<-s.blocked
	select {
	case cause := <-w.cause:
		if !errors.Is(cause, idem.ErrClaimLost) {
			t.Fatalf("cancelled with %v", cause)
		}
	case <-time.After(time.Minute):
		t.Fatal("the work was not cancelled while its renewal hung")
	}
	if err := <-done; !errors.Is(err, idem.ErrClaimLost) {
		t.Errorf("Once: %v", err)
	}
}

// TestBodyIsTheRequests: a handler that keeps its request body past its return reads its
// own body, whatever requests came after (nothing of a request is pooled).
func TestBodyIsTheRequests(t *testing.T) {
	var kept []io.Reader
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		kept = append(kept, r.Body)
		w.WriteHeader(201)
	})
	mw, _ := idem.New(idem.Config{Store: idem.NewMemory(), Scope: idem.SingleTenant})
	for _, body := range []string{"TENANT-A", "TENANT-B-CARD-NUMBER"} {
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		req.Header.Set("Idempotency-Key", "body-"+body)
		mw.Wrap(h).ServeHTTP(httptest.NewRecorder(), req)
	}
	if b, _ := io.ReadAll(kept[0]); string(b) != "TENANT-A" {
		t.Errorf("the first request's body reads %q", b)
	}
}

// TestWaiterSeesAnotherRequest: a request waiting on a key that is released and then
// completed by a request with another payload (through another process's middleware)
// gets 422, not the other request's response.
func TestWaiterSeesAnotherRequest(t *testing.T) {
	store := idem.NewMemory()
	gate := make(chan struct{})
	started := make(chan struct{})
	p1, _ := idem.New(idem.Config{Store: store, Scope: idem.SingleTenant, Logger: discard})
	polled := &pollSignal{Store: store, polled: make(chan struct{})}
	p2, _ := idem.New(idem.Config{Store: polled, Scope: idem.SingleTenant, Wait: time.Minute, Logger: discard})
	failing := p1.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-gate
		w.WriteHeader(500) // releases the key
	}))
	other := p1.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(201)
		io.WriteString(w, "response to C")
	}))
	req := func(body string) *http.Request {
		r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		r.Header.Set("Idempotency-Key", "shared")
		return r
	}
	go failing.ServeHTTP(httptest.NewRecorder(), req("A"))
	<-started
	retry := make(chan *httptest.ResponseRecorder, 1)
	go func() {
		rec := httptest.NewRecorder()
		p2.Wrap(http.NotFoundHandler()).ServeHTTP(rec, req("A"))
		retry <- rec
	}()
	// The retry is waiting once p2 polls the key.
	<-polled.polled
	close(gate) // A fails and releases; C takes the key at once in p1
	var rec *httptest.ResponseRecorder
	for rec == nil {
		c := httptest.NewRecorder()
		other.ServeHTTP(c, req("C"))
		if c.Code == 201 { // C completed the key: the retry's poll sees C's record
			rec = <-retry
			break
		}
		select { // the retry's poll saw the key free first, and ran A itself
		case rec = <-retry:
		default:
		}
	}
	if rec.Code == 201 && strings.Contains(rec.Body.String(), "response to C") {
		t.Fatalf("the retry of A got C's response")
	}
}

// pollSignal is a store that closes polled at the first Get: the middleware reads a key
// only to see how a request it waits for ended.
type pollSignal struct {
	idem.Store
	once   sync.Once
	polled chan struct{}
}

func (s *pollSignal) Get(ctx context.Context, key string) (*idem.Record, error) {
	s.once.Do(func() { close(s.polled) })
	return s.Store.Get(ctx, key)
}

// TestFlushThenStatus: a handler that flushes before setting a status has sent 200; a
// later WriteHeader(500) does not release the key (the client saw 200), so a retry does
// not run it again.
func TestFlushThenStatus(t *testing.T) {
	var runs atomic.Int64
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		runs.Add(1)
		io.WriteString(w, "partial")
		w.(http.Flusher).Flush()
		w.WriteHeader(500)
	})
	srv := newServer(t, idem.Config{Store: idem.NewMemory(), Scope: idem.SingleTenant}, h)
	for range 2 {
		resp, _ := post(t, srv.URL, "flush", "", "{}")
		if resp.StatusCode != 200 {
			t.Errorf("status %d, want the 200 that was sent", resp.StatusCode)
		}
	}
	if runs.Load() != 1 {
		t.Errorf("handler ran %d times", runs.Load())
	}
}

// outcomes records what an Observer hears.
type outcomes struct {
	mu sync.Mutex
	n  map[idem.Outcome]int
}

func (o *outcomes) Served(out idem.Outcome, d time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.n == nil {
		o.n = map[idem.Outcome]int{}
	}
	o.n[out]++
}

// TestObserver: each request with a key is reported once with what was done.
func TestObserver(t *testing.T) {
	obs := &outcomes{}
	h := &orderHandler{}
	srv := newServer(t, idem.Config{Store: idem.NewMemory(), Scope: tenantScope, Observer: obs}, h)
	post(t, srv.URL, "o1", "acme", `{"a":1}`) // ran
	post(t, srv.URL, "o1", "acme", `{"a":1}`) // replayed
	post(t, srv.URL, "o1", "acme", `{"a":2}`) // mismatch
	post(t, srv.URL, "o2", "", `{}`)          // refused: no tenant
	h.fail.Store(1)
	post(t, srv.URL, "o3", "acme", `{}`) // released: 500
	post(t, srv.URL, "", "acme", `{}`)   // no key: not reported
	want := map[idem.Outcome]int{idem.Ran: 1, idem.Replayed: 1, idem.Mismatch: 1, idem.Refused: 1, idem.Released: 1}
	obs.mu.Lock()
	defer obs.mu.Unlock()
	if !maps.Equal(obs.n, want) {
		t.Errorf("outcomes %v, want %v", obs.n, want)
	}
}
