package idem

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"sync"
	"time"
)

// MemoryStore is a Store in process memory: for tests and single-instance services. It
// removes records whose time is over by itself: at most once per MemorySweep, a claim
// sweeps the map, so memory follows the live records, not every key ever seen.
type MemoryStore struct {
	mu    sync.Mutex
	recs  map[string]*memRecord
	now   func() time.Time
	sweep time.Time // when a claim next sweeps the map
}

// MemorySweep is the longest a MemoryStore keeps a record whose time is over while it is
// in use (claims arrive); Purge removes such records at once.
const MemorySweep = time.Second

type memRecord struct {
	Record
	token string
}

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore() *MemoryStore {
	return &MemoryStore{recs: map[string]*memRecord{}, now: time.Now}
}

// Claim implements Store.
func (s *MemoryStore) Claim(_ context.Context, key, fingerprint string, lock time.Duration) (string, *Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	if !now.Before(s.sweep) {
		s.purge(now)
		s.sweep = now.Add(MemorySweep)
	}
	if r, ok := s.recs[key]; ok && !r.over(now) {
		return "", r.copy(), nil
	}
	token := newToken()
	s.recs[key] = &memRecord{Record: Record{Key: key, Fingerprint: fingerprint, State: InProgress, LockedUntil: now.Add(lock)}, token: token}
	return token, nil, nil
}

// Complete implements Store.
func (s *MemoryStore) Complete(_ context.Context, key, token string, resp Response, ttl time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.recs[key]
	if !ok || r.token != token || r.State != InProgress {
		return ErrNotHolder
	}
	resp.Header = resp.Header.Clone()
	resp.Body = append([]byte(nil), resp.Body...)
	r.State, r.Response, r.ExpiresAt, r.token = Completed, &resp, s.now().Add(ttl), ""
	return nil
}

// Release implements Store.
func (s *MemoryStore) Release(_ context.Context, key, token string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.recs[key]
	if !ok || r.token != token || r.State != InProgress {
		return ErrNotHolder
	}
	delete(s.recs, key)
	return nil
}

// Renew implements Store.
func (s *MemoryStore) Renew(_ context.Context, key, token string, lock time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.recs[key]
	if !ok || r.token != token || r.State != InProgress {
		return ErrNotHolder
	}
	r.LockedUntil = s.now().Add(lock)
	return nil
}

// Get implements Store.
func (s *MemoryStore) Get(_ context.Context, key string) (*Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.recs[key]
	if !ok {
		return nil, ErrNotFound
	}
	return r.copy(), nil
}

// Purge implements Store.
func (s *MemoryStore) Purge(context.Context) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.purge(s.now()), nil
}

// purge removes the records whose time is over at now; s.mu is held.
func (s *MemoryStore) purge(now time.Time) int {
	n := 0
	for k, r := range s.recs {
		if r.over(now) {
			delete(s.recs, k)
			n++
		}
	}
	return n
}

func (r *memRecord) over(now time.Time) bool {
	if r.State == Completed {
		return !now.Before(r.ExpiresAt)
	}
	return !now.Before(r.LockedUntil)
}

func (r *memRecord) copy() *Record {
	c := r.Record
	if r.Response != nil {
		resp := *r.Response
		resp.Header = http.Header(resp.Header).Clone()
		resp.Body = append([]byte(nil), resp.Body...)
		c.Response = &resp
	}
	return &c
}

// newToken returns a random claim token.
func newToken() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
