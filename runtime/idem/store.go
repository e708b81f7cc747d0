package idem

import (
	"context"
	"errors"
	"net/http"
	"time"
)

// State is where a key is in its life.
type State uint8

const (
	// InProgress: a caller holds the key and is doing the work.
	InProgress State = iota + 1
	// Completed: the work is done and its response is kept.
	Completed
)

// String returns the state's name.
func (s State) String() string {
	switch s {
	case InProgress:
		return "in progress"
	case Completed:
		return "completed"
	}
	return "unknown"
}

// Response is what a completed key replays.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Record is a key a Store holds.
type Record struct {
	Key         string
	Fingerprint string
	State       State
	// Response is set when State is Completed.
	Response *Response
	// LockedUntil is when an in-progress claim may be taken over: its holder is presumed dead.
	LockedUntil time.Time
	// ExpiresAt is when a completed record may be purged.
	ExpiresAt time.Time
}

// Store keeps idempotency keys. Implementations are safe for concurrent use and make every
// transition atomic in the backing store.
//
// A store that keeps times in whole milliseconds rounds as package
// [github.com/idgen/idgen/runtime/millis] does: lock and ttl round up (millis.Duration),
// so a claim or a stored response never lasts less than asked, and a positive one never
// becomes none. Keys arrive scoped (ledger.ScopedKey) and are opaque bytes to the store.
// The conformance suite in package idemtest (Run) checks a Store against this contract.
type Store interface {
	// Claim takes key for the caller: when the key is absent, or in progress past its
	// LockedUntil, or completed past its ExpiresAt, it records key as in progress with
	// fingerprint, locked for lock, and returns a token and a nil record. Otherwise it
	// returns the record that holds the key, and no token.
	Claim(ctx context.Context, key, fingerprint string, lock time.Duration) (token string, held *Record, err error)
	// Complete stores resp for the key claimed with token, kept for ttl. ErrNotHolder if the
	// claim is no longer the token's. It must copy what it keeps of resp: the middleware
	// passes the header map and body it is about to send.
	Complete(ctx context.Context, key, token string, resp Response, ttl time.Duration) error
	// Release gives the key claimed with token back, so a retry can claim it.
	// ErrNotHolder if the claim is no longer the token's.
	Release(ctx context.Context, key, token string) error
	// Renew extends the in-progress claim token holds on key to lock from now, so work
	// that outlasts the lock keeps the key. ErrNotHolder if the claim is no longer the
	// token's. It should honour ctx's deadline (the middleware cancels the work at that
	// deadline either way).
	Renew(ctx context.Context, key, token string, lock time.Duration) error
	// Get returns the record of key, or ErrNotFound.
	Get(ctx context.Context, key string) (*Record, error)
	// Purge removes records whose time is over: completed past ExpiresAt, in progress past
	// LockedUntil. It returns how many it removed.
	Purge(ctx context.Context) (int, error)
}

var (
	// ErrNotHolder is returned when a token's claim expired and passed to another caller.
	ErrNotHolder = errors.New("idem: the claim is no longer held by this token")
	// ErrNotFound is returned by Get for an absent key.
	ErrNotFound = errors.New("idem: key not found")
)
