package idem

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"net/http"
	"sync"
	"time"
)

// Memory is a Store in process memory: for tests and single-instance services. It
// removes records whose time is over by itself: at most once per MemorySweep, a claim
// sweeps the map, so memory follows the live records, not every key ever seen.
type Memory struct {
	mu    sync.Mutex
	recs  map[string]*memRecord
	now   func() time.Time
	sweep time.Time // when a claim next sweeps the map
}

// MemorySweep is the longest a Memory store keeps a record whose time is over while it is
// in use (claims arrive); Purge removes such records at once.
const MemorySweep = time.Second

// memRecord is a record as the store keeps it: a completed response's header and body in
// one byte slice (see packResponse), so completing a key costs one allocation.
type memRecord struct {
	key, fingerprint       string
	state                  State
	lockedUntil, expiresAt time.Time
	token                  string
	status                 int
	resp                   []byte
}

// NewMemory returns an empty Memory store.
func NewMemory() *Memory {
	return &Memory{recs: map[string]*memRecord{}, now: time.Now}
}

// Claim implements Store.
func (s *Memory) Claim(_ context.Context, key, fingerprint string, lock time.Duration) (string, *Record, error) {
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
	token := NewToken()
	s.recs[key] = &memRecord{key: key, fingerprint: fingerprint, state: InProgress, lockedUntil: now.Add(lock), token: token}
	return token, nil, nil
}

// Complete implements Store.
func (s *Memory) Complete(_ context.Context, key, token string, resp Response, ttl time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.recs[key]
	if !ok || r.token != token || r.state != InProgress {
		return ErrNotHolder
	}
	r.state, r.status, r.resp, r.expiresAt, r.token = Completed, resp.Status, packResponse(resp), s.now().Add(ttl), ""
	return nil
}

// Release implements Store.
func (s *Memory) Release(_ context.Context, key, token string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.recs[key]
	if !ok || r.token != token || r.state != InProgress {
		return ErrNotHolder
	}
	delete(s.recs, key)
	return nil
}

// Renew implements Store.
func (s *Memory) Renew(_ context.Context, key, token string, lock time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.recs[key]
	if !ok || r.token != token || r.state != InProgress {
		return ErrNotHolder
	}
	r.lockedUntil = s.now().Add(lock)
	return nil
}

// Get implements Store.
func (s *Memory) Get(_ context.Context, key string) (*Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.recs[key]
	if !ok {
		return nil, ErrNotFound
	}
	return r.copy(), nil
}

// Purge implements Store.
func (s *Memory) Purge(context.Context) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.purge(s.now()), nil
}

// purge removes the records whose time is over at now; s.mu is held.
func (s *Memory) purge(now time.Time) int {
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
	if r.state == Completed {
		return !now.Before(r.expiresAt)
	}
	return !now.Before(r.lockedUntil)
}

func (r *memRecord) copy() *Record {
	c := &Record{Key: r.key, Fingerprint: r.fingerprint, State: r.state, LockedUntil: r.lockedUntil}
	if r.state == Completed {
		c.ExpiresAt = r.expiresAt
		c.Response = unpackResponse(r.status, r.resp)
	}
	return c
}

// packResponse encodes resp's header and body in one slice: per header field its name
// and its values, each as a uvarint length and bytes, then a 0 and the body. A nil header
// is a 1 first, an empty one a 2 (fields follow the 2).
func packResponse(resp Response) []byte {
	n := 1 + len(resp.Body)
	for k, vs := range resp.Header {
		n += 2*binary.MaxVarintLen32 + len(k)
		for _, v := range vs {
			n += binary.MaxVarintLen32 + len(v)
		}
	}
	b := make([]byte, 0, n)
	if resp.Header == nil {
		b = append(b, 1)
	} else {
		b = append(b, 2)
		for k, vs := range resp.Header {
			b = binary.AppendUvarint(b, uint64(len(k))+1)
			b = append(b, k...)
			b = binary.AppendUvarint(b, uint64(len(vs)))
			for _, v := range vs {
				b = binary.AppendUvarint(b, uint64(len(v)))
				b = append(b, v...)
			}
		}
		b = append(b, 0)
	}
	return append(b, resp.Body...)
}

// unpackResponse decodes what packResponse encoded, into a response of its own.
func unpackResponse(status int, b []byte) *Response {
	resp := &Response{Status: status}
	next := func() int {
		n, w := binary.Uvarint(b)
		b = b[w:]
		return int(n)
	}
	str := func() string {
		n := next()
		s := string(b[:n])
		b = b[n:]
		return s
	}
	if b[0] == 2 {
		b = b[1:]
		resp.Header = http.Header{}
		for {
			kl := next()
			if kl == 0 {
				break
			}
			k := string(b[:kl-1])
			b = b[kl-1:]
			vs := make([]string, next())
			for i := range vs {
				vs[i] = str()
			}
			resp.Header[k] = vs
		}
	} else {
		b = b[1:]
	}
	if len(b) > 0 {
		resp.Body = append([]byte(nil), b...)
	}
	return resp
}

// NewToken returns a random claim token, 128 bits in hex, for Store implementations (the
// memory and SQL stores here, redisidem's) to hand out from Claim.
func NewToken() string {
	var b [16]byte
	rand.Read(b[:])
	var out [32]byte
	hex.Encode(out[:], b[:])
	return string(out[:])
}
