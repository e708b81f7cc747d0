package idem

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Config configures the HTTP middleware. Store is required; the rest have defaults.
type Config struct {
	// Store keeps the keys.
	Store Store
	// KeyHeaders are the request headers read for the key, first non-empty wins; default
	// Idempotency-Key, then X-Request-ID.
	KeyHeaders []string
	// Methods take keys; default POST and PATCH. Other methods pass through untouched.
	Methods []string
	// Require reports whether a request must carry a key; one without gets 400. Nil: keys
	// are optional.
	Require func(*http.Request) bool
	// Scope returns who is calling (a tenant, an account), from the request's
	// authentication; keys are scoped by it, so one caller never sees another's response.
	// An error answers 401. Nil: one scope for everyone.
	Scope func(*http.Request) (string, error)
	// FingerprintHeaders are request headers that, with the method, path, query and body,
	// make the request's fingerprint: the same key with another fingerprint gets 422.
	FingerprintHeaders []string
	// LockTimeout is how long a claim may stay in progress before it is presumed dead and
	// another request may take the key; default one minute.
	LockTimeout time.Duration
	// TTL is how long a completed response is kept for replay; default 24 hours.
	TTL time.Duration
	// Wait, when positive, makes a request whose key is in progress wait up to Wait for the
	// first one to finish and then get its response; zero answers 409 at once.
	Wait time.Duration
	// Release reports whether a response status gives the key back so a retry runs again;
	// default: 5xx. A panicking handler always releases.
	Release func(status int) bool
	// MaxRequestBytes bounds the request body read for the fingerprint (413 above it);
	// default 1 MiB.
	MaxRequestBytes int64
	// MaxResponseBytes bounds a stored response; default 1 MiB. A larger response is sent
	// but not stored: the key is released and the response carries an Idempotency-Warning.
	MaxResponseBytes int
}

// ReplayedHeader marks a response replayed from the store.
const ReplayedHeader = "Idempotent-Replayed"

// WarningHeader explains why a response was not stored.
const WarningHeader = "Idempotency-Warning"

// maxKeyLen is the longest key accepted.
const maxKeyLen = 255

// Middleware is the idempotency middleware; Wrap a handler with it.
type Middleware struct {
	cfg Config
}

// New checks cfg, fills its defaults and returns the middleware.
func New(cfg Config) (*Middleware, error) {
	if cfg.Store == nil {
		return nil, errors.New("idem: Config.Store is nil")
	}
	if len(cfg.KeyHeaders) == 0 {
		cfg.KeyHeaders = []string{"Idempotency-Key", "X-Request-ID"}
	}
	if len(cfg.Methods) == 0 {
		cfg.Methods = []string{http.MethodPost, http.MethodPatch}
	}
	if cfg.LockTimeout <= 0 {
		cfg.LockTimeout = time.Minute
	}
	if cfg.TTL <= 0 {
		cfg.TTL = 24 * time.Hour
	}
	if cfg.Release == nil {
		cfg.Release = func(status int) bool { return status >= 500 }
	}
	if cfg.MaxRequestBytes <= 0 {
		cfg.MaxRequestBytes = 1 << 20
	}
	if cfg.MaxResponseBytes <= 0 {
		cfg.MaxResponseBytes = 1 << 20
	}
	for i, h := range cfg.FingerprintHeaders {
		cfg.FingerprintHeaders[i] = http.CanonicalHeaderKey(h)
	}
	slices.Sort(cfg.FingerprintHeaders)
	return &Middleware{cfg: cfg}, nil
}

// Wrap returns next behind the middleware.
func (m *Middleware) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m.serve(w, r, next)
	})
}

func (m *Middleware) serve(w http.ResponseWriter, r *http.Request, next http.Handler) {
	if !slices.Contains(m.cfg.Methods, r.Method) {
		next.ServeHTTP(w, r)
		return
	}
	key := ""
	for _, h := range m.cfg.KeyHeaders {
		if key = r.Header.Get(h); key != "" {
			break
		}
	}
	if key == "" {
		if m.cfg.Require != nil && m.cfg.Require(r) {
			problem(w, http.StatusBadRequest, "Idempotency-Key required", "this endpoint needs an "+m.cfg.KeyHeaders[0]+" header: a unique value per operation, repeated on retries")
			return
		}
		next.ServeHTTP(w, r)
		return
	}
	if err := validKey(key); err != nil {
		problem(w, http.StatusBadRequest, "Invalid Idempotency-Key", err.Error())
		return
	}
	scope := ""
	if m.cfg.Scope != nil {
		s, err := m.cfg.Scope(r)
		if err != nil {
			problem(w, http.StatusUnauthorized, "Unauthorized", "the caller could not be identified: "+err.Error())
			return
		}
		scope = s
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, m.cfg.MaxRequestBytes+1))
	if err != nil {
		problem(w, http.StatusBadRequest, "Unreadable body", err.Error())
		return
	}
	if int64(len(body)) > m.cfg.MaxRequestBytes {
		problem(w, http.StatusRequestEntityTooLarge, "Request too large", fmt.Sprintf("request bodies above %d bytes are not accepted with an idempotency key", m.cfg.MaxRequestBytes))
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	scoped := scopedKey(scope, key)
	fp := m.fingerprint(r, body)

	ctx := r.Context()
	deadline := time.Now().Add(m.cfg.Wait)
	for {
		token, held, err := m.cfg.Store.Claim(ctx, scoped, fp, m.cfg.LockTimeout)
		if err != nil {
			problem(w, http.StatusServiceUnavailable, "Idempotency store unavailable", err.Error())
			return
		}
		if token != "" {
			m.run(w, r, next, scoped, token)
			return
		}
		if held.Fingerprint != fp {
			problem(w, http.StatusUnprocessableEntity, "Idempotency-Key reused", "this key was used for a different request (method, path, body or headers differ)")
			return
		}
		if held.State == Completed {
			replay(w, held.Response)
			return
		}
		if m.cfg.Wait <= 0 || !time.Now().Before(deadline) {
			problem(w, http.StatusConflict, "Request in progress", "a request with this key is being processed; retry later")
			return
		}
		// Wait for the first request to finish, then look again.
		if done := m.await(ctx, scoped, deadline); done != nil {
			replay(w, done)
			return
		}
		if ctx.Err() != nil {
			return
		}
	}
}

// await polls the store until the key completes (returns the response), disappears
// (returns nil: claim again), or the deadline passes.
func (m *Middleware) await(ctx context.Context, key string, deadline time.Time) *Response {
	pause := 5 * time.Millisecond
	for time.Now().Before(deadline) {
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
		rec, err := m.cfg.Store.Get(ctx, key)
		if errors.Is(err, ErrNotFound) {
			return nil
		}
		if err == nil && rec.State == Completed {
			return rec.Response
		}
		if err == nil && rec.State == InProgress && !time.Now().Before(rec.LockedUntil) {
			return nil
		}
		pause = min(pause*2, 100*time.Millisecond)
	}
	return nil
}

// run calls the handler for the claimed key, then completes or releases it and sends the
// response.
func (m *Middleware) run(w http.ResponseWriter, r *http.Request, next http.Handler, key, token string) {
	rec := &recorder{header: http.Header{}, limit: m.cfg.MaxResponseBytes}
	// The store calls below must happen even if the client went away.
	ctx := context.WithoutCancel(r.Context())
	defer func() {
		if p := recover(); p != nil {
			m.cfg.Store.Release(ctx, key, token)
			panic(p)
		}
	}()
	next.ServeHTTP(rec, r)
	status := rec.statusCode()
	switch {
	case m.cfg.Release(status):
		if err := m.cfg.Store.Release(ctx, key, token); err != nil && !errors.Is(err, ErrNotHolder) {
			rec.header.Set(WarningHeader, "the key could not be released: "+err.Error())
		}
	case rec.tooLarge:
		m.cfg.Store.Release(ctx, key, token)
		rec.header.Set(WarningHeader, fmt.Sprintf("response above %d bytes not stored; a retry with this key runs again", m.cfg.MaxResponseBytes))
	default:
		resp := Response{Status: status, Header: storedHeader(rec.header), Body: rec.body.Bytes()}
		if err := m.cfg.Store.Complete(ctx, key, token, resp, m.cfg.TTL); err != nil {
			rec.header.Set(WarningHeader, "the response was not stored: "+err.Error())
		}
	}
	rec.send(w)
}

func validKey(key string) error {
	if len(key) > maxKeyLen {
		return fmt.Errorf("the key is %d bytes long; at most %d", len(key), maxKeyLen)
	}
	for i := 0; i < len(key); i++ {
		if c := key[i]; c < 0x20 || c == 0x7f {
			return fmt.Errorf("the key has a control character at byte %d", i)
		}
	}
	return nil
}

// scopedKey joins scope and key so that no two (scope, key) pairs give one string. A
// scope longer than 64 bytes is replaced by its SHA-256, so a scoped key stays within
// what the stores index (at most 330 bytes).
func scopedKey(scope, key string) string {
	if len(scope) > 64 {
		sum := sha256.Sum256([]byte(scope))
		scope = "sha256-" + hex.EncodeToString(sum[:])
	}
	return strconv.Itoa(len(scope)) + ":" + scope + ":" + key
}

func (m *Middleware) fingerprint(r *http.Request, body []byte) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n%s\n", r.Method, r.URL.Path, r.URL.RawQuery)
	for _, name := range m.cfg.FingerprintHeaders {
		fmt.Fprintf(h, "%s: %q\n", name, r.Header.Values(name))
	}
	bodySum := sha256.Sum256(body)
	h.Write(bodySum[:])
	return hex.EncodeToString(h.Sum(nil))
}

// storedHeader keeps the response headers worth replaying.
func storedHeader(h http.Header) http.Header {
	out := h.Clone()
	for _, hop := range []string{"Connection", "Date", "Set-Cookie", "Transfer-Encoding", WarningHeader} {
		out.Del(hop)
	}
	return out
}

func replay(w http.ResponseWriter, resp *Response) {
	for k, v := range resp.Header {
		w.Header()[k] = slices.Clone(v)
	}
	w.Header().Set(ReplayedHeader, "true")
	w.Header().Set("Content-Length", strconv.Itoa(len(resp.Body)))
	w.WriteHeader(resp.Status)
	w.Write(resp.Body)
}

// problem writes an RFC 9457 problem+json response.
func problem(w http.ResponseWriter, status int, title, detail string) {
	b, _ := json.Marshal(map[string]any{"type": "about:blank", "title": title, "status": status, "detail": detail})
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	w.Write(b)
}

// recorder buffers a handler's response so it can be stored before it is sent.
type recorder struct {
	header   http.Header
	status   int
	body     bytes.Buffer
	limit    int
	tooLarge bool
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	if r.body.Len()+len(b) > r.limit {
		r.tooLarge = true
	}
	return r.body.Write(b)
}

func (r *recorder) statusCode() int {
	if r.status == 0 {
		return http.StatusOK
	}
	return r.status
}

func (r *recorder) send(w http.ResponseWriter) {
	for k, v := range r.header {
		w.Header()[k] = v
	}
	if w.Header().Get("Content-Length") == "" && !strings.EqualFold(w.Header().Get("Transfer-Encoding"), "chunked") {
		w.Header().Set("Content-Length", strconv.Itoa(r.body.Len()))
	}
	w.WriteHeader(r.statusCode())
	w.Write(r.body.Bytes())
}
