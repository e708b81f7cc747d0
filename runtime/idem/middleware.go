package idem

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/idgen/idgen/runtime/ledger"
)

// Config configures the HTTP middleware. Store and Scope are required; the rest have
// defaults.
type Config struct {
	// Store keeps the keys.
	Store Store
	// Scope returns who is calling (a tenant, an account), from the request's
	// authentication; keys are scoped by it, so one caller never sees another's response
	// nor learns that another used a key. An error answers 401 (the error is logged, not
	// sent). Required: a service where every caller may share keys says so with
	// SingleTenant.
	Scope func(*http.Request) (string, error)
	// KeyHeaders are the request headers read for the key, first non-empty wins; default
	// Idempotency-Key alone. Adding X-Request-ID is a risk: proxies and tracing forward it
	// to every call made while serving one request, so distinct operations would share
	// one key and all but the first would be replayed instead of run.
	KeyHeaders []string
	// Methods take keys; default POST and PATCH. Other methods pass through untouched.
	Methods []string
	// Require reports whether a request must carry a key; one without gets 400. Nil: keys
	// are optional.
	Require func(*http.Request) bool
	// FingerprintHeaders are request headers that, with the method, path, query and body,
	// make the request's fingerprint: the same key with another fingerprint gets 422.
	FingerprintHeaders []string
	// FingerprintBody, when set, writes to dst what the fingerprint hashes of the request
	// body (dst is a hash: what is written is not kept); CanonicalJSON makes JSON bodies
	// that differ only in whitespace and member order one request. An error refuses the
	// request with 400 and the error's text as the problem's detail, before any claim:
	// return errors written for the client. Nil: the body's bytes.
	FingerprintBody func(dst io.Writer, body []byte) error
	// LockTimeout is how long a claim whose holder stopped renewing it stays in progress
	// before the holder is presumed dead and another request may take the key;
	// DefaultLockTimeout if zero. Work may take longer: the claim is renewed every
	// LockTimeout/3 while the handler runs, and the handler's context is cancelled if it
	// cannot be.
	LockTimeout time.Duration
	// TTL is how long a completed response is kept for replay; DefaultTTL if zero.
	TTL time.Duration
	// Wait, when positive, makes a request whose key is in progress wait up to Wait for the
	// first one to finish and then get its response; zero answers 409 at once.
	Wait time.Duration
	// Release reports whether a response status gives the key back so a retry runs again;
	// default: 5xx. A panicking handler always releases.
	Release func(status int) bool
	// MaxRequestBytes bounds the request body read for the fingerprint (413 above it);
	// DefaultMaxRequestBytes if zero.
	MaxRequestBytes int64
	// MaxResponseBytes bounds a stored response body, and the memory a response takes;
	// DefaultMaxResponseBytes if zero. A larger response streams to the client as the
	// handler writes it, and the key is completed with its status and headers but not its
	// body: a retry gets that status, a problem+json body saying so and an
	// Idempotency-Warning, and the handler does not run again. A handler that flushes is
	// treated the same way. A handler that hijacks the connection (a protocol switch) sent
	// what the middleware cannot see: its key is completed as not replayable, and a retry
	// gets 422 with a problem+json body saying so and the warning, without running again.
	MaxResponseBytes int
	// Logger receives what the client is not told: store failures, a failing Scope, lost
	// claims. Nil: slog.Default() at New.
	Logger *slog.Logger
	// Observer, when set, hears the outcome and duration of every request with a key
	// (metrics: the OpenTelemetry adapter implements it).
	Observer Observer
}

// SingleTenant is a Config.Scope for services where every caller may use every key: one
// scope for everyone, so a caller who reuses another's key gets the other's response. Use
// it only where that is true (a single client, an internal queue), never for a public API.
func SingleTenant(*http.Request) (string, error) { return "", nil }

// ReplayedHeader marks a response replayed from the store.
const ReplayedHeader = "Idempotent-Replayed"

// WarningHeader says what the middleware did not do: store a response, or replay a body.
const WarningHeader = "Idempotency-Warning"

// DefaultKeyHeader is the header read for the key unless Config.KeyHeaders says otherwise.
const DefaultKeyHeader = "Idempotency-Key"

// Defaults for the zero fields of Config (and, for the lock and the TTL, of OnceOptions).
const (
	// DefaultLockTimeout is how long a claim whose holder stopped renewing it holds its
	// key: the time to notice a dead holder, not a bound on the work.
	DefaultLockTimeout = time.Minute
	// DefaultTTL is how long a completed key is kept: a response for replay, a message
	// marked done by Once.
	DefaultTTL = 24 * time.Hour
	// DefaultMaxRequestBytes is the largest request body read for the fingerprint.
	DefaultMaxRequestBytes = 1 << 20
	// DefaultMaxResponseBytes is the largest response body kept for replay.
	DefaultMaxResponseBytes = 1 << 20
)

// MaxKeyLen is the longest key, in bytes, the middleware accepts from a client (after
// unquoting a Structured Field string); a longer one gets 400.
const MaxKeyLen = 255

// retryAfter is the Retry-After, in seconds, of answers that ask the client to retry.
const retryAfter = "1"

// ErrNoScope is returned by New for a Config without a Scope.
var ErrNoScope = errors.New("idem: Config.Scope is nil: set it to the caller's tenant or account from authentication, or to idem.SingleTenant if every caller may share keys")

// Middleware is the idempotency middleware; Wrap a handler with it.
type Middleware struct {
	cfg     Config
	log     *slog.Logger
	watches watches
	warn    string   // the Idempotency-Warning of a response passed through
	taken   Response // what a key whose handler hijacked the connection replays
}

// New checks cfg, fills its defaults and returns the middleware.
func New(cfg Config) (*Middleware, error) {
	if cfg.Store == nil {
		return nil, errors.New("idem: Config.Store is nil")
	}
	if cfg.Scope == nil {
		return nil, ErrNoScope
	}
	if len(cfg.KeyHeaders) == 0 {
		cfg.KeyHeaders = []string{DefaultKeyHeader}
	}
	if len(cfg.Methods) == 0 {
		cfg.Methods = []string{http.MethodPost, http.MethodPatch}
	}
	if cfg.LockTimeout <= 0 {
		cfg.LockTimeout = DefaultLockTimeout
	}
	if cfg.TTL <= 0 {
		cfg.TTL = DefaultTTL
	}
	if cfg.Release == nil {
		cfg.Release = func(status int) bool { return status >= 500 }
	}
	if cfg.MaxRequestBytes <= 0 {
		cfg.MaxRequestBytes = DefaultMaxRequestBytes
	}
	if cfg.MaxResponseBytes <= 0 {
		cfg.MaxResponseBytes = DefaultMaxResponseBytes
	}
	cfg.FingerprintHeaders = slices.Clone(cfg.FingerprintHeaders)
	for i, h := range cfg.FingerprintHeaders {
		cfg.FingerprintHeaders[i] = http.CanonicalHeaderKey(h)
	}
	slices.Sort(cfg.FingerprintHeaders)
	m := &Middleware{cfg: cfg, log: cfg.Logger}
	if m.log == nil {
		m.log = slog.Default()
	}
	m.warn = "response not stored (above " + strconv.Itoa(cfg.MaxResponseBytes) + " bytes, or streamed); a retry with this key gets its status without the body"
	m.taken = Response{
		Status: http.StatusUnprocessableEntity,
		Header: http.Header{
			"Content-Type": {"application/problem+json"},
			WarningHeader:  {"the request took over its connection; its response was not stored and cannot be replayed"},
		},
		Body: problemBody(http.StatusUnprocessableEntity, "Response not replayable",
			"the request with this key was processed, and its handler took over the connection (a protocol switch): what it sent there was not kept, and the request is not run again; send it with a new Idempotency-Key to run it again"),
	}
	return m, nil
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
	raw := ""
	for _, h := range m.cfg.KeyHeaders {
		switch vs := r.Header.Values(h); {
		case len(vs) > 1:
			// Two field lines are one list (RFC 9110 5.3), which a proxy may have joined
			// already: both forms reach parseKey as the list, which is not a key.
			raw = strings.Join(vs, ", ")
		case len(vs) == 1:
			raw = vs[0]
		}
		if raw != "" {
			break
		}
	}
	if raw == "" {
		if m.cfg.Require != nil && m.cfg.Require(r) {
			problem(w, http.StatusBadRequest, "Idempotency-Key required", "this endpoint needs an "+m.cfg.KeyHeaders[0]+" header: a unique value per operation, repeated on retries")
			return
		}
		next.ServeHTTP(w, r)
		return
	}
	if m.cfg.Observer == nil {
		m.serveKeyed(w, r, next, raw)
		return
	}
	start := time.Now()
	o := m.serveKeyed(w, r, next, raw)
	m.cfg.Observer.Served(o, time.Since(start))
}

// serveKeyed serves a request that carries the key header value raw, and says what it did.
func (m *Middleware) serveKeyed(w http.ResponseWriter, r *http.Request, next http.Handler, raw string) Outcome {
	key, err := parseKey(raw)
	if err != nil {
		problem(w, http.StatusBadRequest, "Invalid Idempotency-Key", err.Error())
		return Refused
	}
	scope, err := m.cfg.Scope(r)
	if err != nil {
		m.log.LogAttrs(r.Context(), slog.LevelWarn, "idem: the caller could not be identified", slog.String("path", r.URL.Path), slog.Any("error", err))
		problem(w, http.StatusUnauthorized, "Unauthorized", "the caller could not be identified")
		return Refused
	}
	wk := &work{}
	body, err := wk.in.read(r.Body, m.cfg.MaxRequestBytes)
	if err != nil {
		m.log.LogAttrs(r.Context(), slog.LevelInfo, "idem: reading the request body", slog.Any("error", err))
		problem(w, http.StatusBadRequest, "Unreadable body", "the request body could not be read")
		return Refused
	}
	if int64(len(body)) > m.cfg.MaxRequestBytes {
		problem(w, http.StatusRequestEntityTooLarge, "Request too large", fmt.Sprintf("request bodies above %d bytes are not accepted with an idempotency key", m.cfg.MaxRequestBytes))
		return Refused
	}
	r.Body = &wk.in
	wk.key = Key{Scope: scope, Value: key, Scoped: ledger.ScopedKey(scope, key)}
	k := &wk.key
	fp, err := m.fingerprint(r, body)
	if err != nil {
		problem(w, http.StatusBadRequest, "Invalid request body", err.Error())
		return Refused
	}

	ctx := r.Context()
	deadline := time.Now().Add(m.cfg.Wait)
	for {
		claimed := time.Now()
		token, held, err := m.cfg.Store.Claim(ctx, k.Scoped, fp, m.cfg.LockTimeout)
		if err != nil {
			m.unavailable(ctx, w, "claiming", err)
			return StoreFailed
		}
		if token != "" {
			return m.run(w, r, next, wk, token, claimed)
		}
		if held.Fingerprint != fp {
			problem(w, http.StatusUnprocessableEntity, "Idempotency-Key reused", "this key was used for a different request (method, path, body or headers differ)")
			return Mismatch
		}
		if held.State == Completed {
			replay(w, held.Response)
			return Replayed
		}
		if m.cfg.Wait <= 0 || !time.Now().Before(deadline) {
			w.Header().Set("Retry-After", retryAfter)
			problem(w, http.StatusConflict, "Request in progress", "a request with this key is being processed; retry later")
			return InFlight
		}
		// Wait for the first request to finish, then look again. The key may have been
		// released and completed by another request in between: its fingerprint is
		// checked again.
		if done := m.watches.await(ctx, m.cfg.Store, k.Scoped, deadline); done != nil {
			if done.Fingerprint != fp {
				problem(w, http.StatusUnprocessableEntity, "Idempotency-Key reused", "this key was used for a different request (method, path, body or headers differ)")
				return Mismatch
			}
			replay(w, done.Response)
			return Replayed
		}
		if ctx.Err() != nil {
			return InFlight // the client went away while waiting
		}
	}
}

// unavailable answers 503 for a store that failed, and logs what failed: the client learns
// nothing of the store.
func (m *Middleware) unavailable(ctx context.Context, w http.ResponseWriter, doing string, err error) {
	m.log.LogAttrs(ctx, slog.LevelError, "idem: store failed", slog.String("doing", doing), slog.Any("error", err))
	w.Header().Set("Retry-After", retryAfter)
	problem(w, http.StatusServiceUnavailable, "Service unavailable", "the request could not be processed right now; retry with the same Idempotency-Key")
}

// run calls the handler for the claimed key, keeping the claim while it runs, then
// completes or releases the key and sends the response.
func (m *Middleware) run(w http.ResponseWriter, r *http.Request, next http.Handler, wk *work, token string, claimed time.Time) Outcome {
	store, key := m.cfg.Store, wk.key.Scoped
	wk.start(r.Context(), store, token, m.cfg.LockTimeout, claimed)
	// The store calls below must happen even if the client went away.
	bg := &wk.bg
	rec := &wk.rec
	rec.init(w, m.cfg.MaxResponseBytes, m.warn)
	// The handler sets its headers on the client's map (see recorder); what was there
	// before it ran is what an answer of the middleware's own keeps.
	var before http.Header
	if len(w.Header()) > 0 {
		before = w.Header().Clone()
	}
	defer func() {
		if p := recover(); p != nil {
			wk.stop()
			store.Release(bg, key, token)
			m.watches.wake(key)
			panic(p)
		}
		m.watches.wake(key)
	}()
	next.ServeHTTP(rec, r.WithContext(wk))
	lost, taken := wk.stop()
	if taken {
		m.log.LogAttrs(bg, slog.LevelError, "idem: the claim was taken by another request while the handler ran; nothing stored", slog.String("key", key), slog.Any("error", lost))
		m.claimLost(bg, w, rec, before, lost)
		return ClaimLost
	}
	// lost, if set, is a claim whose renewals failed, which may still be this token's: the
	// store calls below act only if it is (see work), and the client gets the handler's
	// response only if the store took its outcome.
	out, what := Ran, ""
	var err error
	status := rec.statusCode()
	switch {
	case rec.hijacked():
		// Whatever the handler sent (101 and another protocol, most often) went over a
		// connection the middleware does not see: a retry cannot be given it, nor told it
		// succeeded or failed, and must not run the handler again. Never released.
		err = store.Complete(bg, key, token, m.taken, m.cfg.TTL)
		what = "completing a key whose handler hijacked the connection; a retry may run again"
	case m.cfg.Release(status):
		out = Released
		if err = store.Release(bg, key, token); errors.Is(err, ErrNotHolder) && lost == nil {
			err = nil // the lock timed out, and the key is free or another's: either way released
		}
		what = "releasing a key; it stays claimed until its lock times out"
	case rec.passing():
		err = store.Complete(bg, key, token, m.omitted(w.Header(), status), m.cfg.TTL)
		what = "completing a key whose response was not kept"
	default:
		resp := Response{Status: status, Header: storedHeader(w.Header()), Body: rec.body}
		err = store.Complete(bg, key, token, resp, m.cfg.TTL)
		what = "completing a key; a retry may run the handler again"
	}
	switch {
	case err != nil && lost != nil:
		m.log.LogAttrs(bg, slog.LevelError, "idem: renewing the claim failed while the handler ran, and its outcome could not be stored with the claim's token; nothing stored", slog.String("key", key), slog.Any("error", lost), slog.Any("store", err))
		m.claimLost(bg, w, rec, before, lost)
		return ClaimLost
	case lost != nil:
		m.log.LogAttrs(bg, slog.LevelWarn, "idem: renewing the claim failed while the handler ran, but the claim was still its own: its outcome was stored", slog.String("key", key), slog.Any("error", lost))
	case err != nil:
		m.log.LogAttrs(bg, slog.LevelError, "idem: "+what, slog.String("key", key), slog.Any("error", err))
		if out == Ran && !rec.passing() {
			w.Header().Set(WarningHeader, "the response was not stored; a retry with this key may run again")
		}
	}
	if !rec.passing() {
		rec.send()
	}
	return out
}

// claimLost answers a request whose claim was lost with 503, unless the response already
// went to the client: the headers the handler set are dropped for those the writer had
// before it ran.
func (m *Middleware) claimLost(ctx context.Context, w http.ResponseWriter, rec *recorder, before http.Header, lost error) {
	if rec.passing() {
		return
	}
	h := w.Header()
	clear(h)
	maps.Copy(h, before)
	m.unavailable(ctx, w, "renewing the claim", lost)
}

// omitted is what a key whose response was passed through replays: the status and
// headers, and a problem+json body saying the original body was not kept.
func (m *Middleware) omitted(header http.Header, status int) Response {
	h := storedHeader(header)
	for _, k := range []string{"Content-Length", "Content-Encoding", "Content-Range", "Etag", "Last-Modified", "Trailer"} {
		h.Del(k)
	}
	h.Set("Content-Type", "application/problem+json")
	h.Set(WarningHeader, "the original response body was not stored; this replay has its status and headers only")
	return Response{Status: status, Header: h, Body: problemBody(status, "Response not replayable",
		"the request was processed, but its response was too large to keep (or was streamed); it is not run again")}
}

// notReplayed are the response headers a replay does not repeat.
var notReplayed = []string{"Connection", "Date", "Set-Cookie", "Transfer-Encoding", WarningHeader}

// storedHeader returns the response headers worth replaying: h itself when it has none of
// notReplayed (stores copy what they keep), else a copy without them.
func storedHeader(h http.Header) http.Header {
	clean := true
	for _, k := range notReplayed {
		if _, ok := h[k]; ok {
			clean = false
		}
	}
	if clean {
		return h
	}
	out := h.Clone()
	for _, k := range notReplayed {
		delete(out, k)
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
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	w.Write(problemBody(status, title, detail))
}

// problemBody returns an RFC 9457 problem+json document.
func problemBody(status int, title, detail string) []byte {
	b, _ := json.Marshal(struct {
		Type   string `json:"type"`
		Title  string `json:"title"`
		Status int    `json:"status"`
		Detail string `json:"detail"`
	}{"about:blank", title, status, detail})
	return b
}
