package lease

import "time"

// The tests are package lease_test, like those on databases and servers in the
// integration module (integration/lease), which cannot reach these; the tests that need
// them (the SQL text, the millisecond rounding, a renewal's gate by hand) live here.
var (
	Bind   = bind
	ToMs   = toMs
	FromMs = fromMs
)

// OpenGateUntil moves the deadline of l's current generator to t, as a renewal would.
func OpenGateUntil(l *Lease, t time.Time) { l.cur.Load().gate.OpenUntil(t) }
