package lease

import (
	"context"
	"sync"
	"time"
)

// Memory is a Backend that keeps its leases in the process's memory, by the process's
// clock: for tests, examples and programs whose holders all run in one process. It
// coordinates nothing across processes, and it forgets every lease when the process
// ends, so each worker ID's first claim is Fresh. Safe for concurrent use.
type Memory struct {
	mu   sync.Mutex
	rows map[int64]*memoryRow
}

// memoryRow is what Memory knows of one worker ID.
type memoryRow struct {
	token   string
	expires time.Time // when the lease ends (or ended)
	last    time.Time // the latest tick a holder recorded
}

// NewMemory returns a Memory that has leased no worker ID yet.
func NewMemory() *Memory { return &Memory{rows: map[int64]*memoryRow{}} }

// Acquire implements Backend: it claims the lowest worker ID in [0, max] that no live
// lease holds, or fails with an *AllTakenError.
func (m *Memory) Acquire(_ context.Context, max int64, token string, ttl time.Duration) (Claim, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	for w := int64(0); w <= max; w++ {
		r := m.rows[w]
		if r == nil {
			m.rows[w] = &memoryRow{token: token, expires: now.Add(ttl)}
			return Claim{Worker: w, Fresh: true, Expires: now.Add(ttl)}, nil
		}
		if !r.expires.After(now) {
			c := Claim{Worker: w, Last: r.last, Prev: r.expires, Expires: now.Add(ttl)}
			r.token, r.expires = token, now.Add(ttl)
			return c, nil
		}
	}
	return Claim{}, &AllTakenError{Max: max}
}

// Renew implements Backend: it extends token's live lease on worker to ttl from now and
// records last, or fails with a *LostError.
func (m *Memory) Renew(_ context.Context, worker int64, token string, ttl time.Duration, last time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	r := m.rows[worker]
	switch {
	case r == nil:
		return &LostError{Worker: worker}
	case r.token != token:
		return &LostError{Worker: worker, Taken: true}
	case !r.expires.After(now):
		return &LostError{Worker: worker, Expired: r.expires}
	}
	r.expires = now.Add(ttl)
	if last.After(r.last) {
		r.last = last
	}
	return nil
}

// Release implements Backend: it records last and ends token's lease on worker now, or
// fails with a *LostError if another holder has claimed worker.
func (m *Memory) Release(_ context.Context, worker int64, token string, last time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.rows[worker]
	if r == nil || r.token != token {
		return &LostError{Worker: worker, Taken: r != nil}
	}
	if now := time.Now(); r.expires.After(now) {
		r.expires = now
	}
	if last.After(r.last) {
		r.last = last
	}
	return nil
}
