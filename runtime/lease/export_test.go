package lease

import "time"

// The tests are package lease_test, so that they can run every backend, redislease's too
// (redislease imports this package); these are the internals they reach.
var (
	Bind   = bind
	ToMs   = toMs
	FromMs = fromMs
)

// OpenGateUntil moves the deadline of l's current generator to t, as a renewal would.
func OpenGateUntil(l *Lease, t time.Time) { l.cur.Load().gate.OpenUntil(t) }
