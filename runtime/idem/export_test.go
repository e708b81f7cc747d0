package idem

import (
	"net/http"
	"time"
)

// Internals the external tests (package idem_test) check.

var (
	ParseKey  = parseKey
	ScopedKey = scopedKey
	RowsFound = int32(rowsFound)
)

// SetMemoryClock sets the clock s judges expiry by.
func SetMemoryClock(s *Memory, now func() time.Time) { s.now = now }

// MemoryRecords returns the keys s holds, swept or not.
func MemoryRecords(s *Memory) map[string]bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	keys := make(map[string]bool, len(s.recs))
	for k := range s.recs {
		keys[k] = true
	}
	return keys
}

// SQLFoundRows returns what s learnt of the connection's affected-rows report.
func SQLFoundRows(s *SQL) int32 { return s.foundRows.Load() }

// SQLBind returns the statement s runs for tmpl, in its dialect, and the arguments it
// passes for args.
func SQLBind(s *SQL, tmpl string, args ...any) (string, []any) {
	st := s.bind(tmpl)
	return st.Query, st.Args(args...)
}

// Fingerprint returns the fingerprint m gives r with body.
func Fingerprint(m *Middleware, r *http.Request, body []byte) string { return m.fingerprint(r, body) }

// Watched returns how many keys m's waiters are watching.
func Watched(m *Middleware) int {
	m.watches.mu.Lock()
	defer m.watches.mu.Unlock()
	return len(m.watches.m)
}
