package snowflake

import (
	"errors"
	"sync/atomic"
	"time"
)

// ErrGateClosed is returned while a generator's Gate does not allow issuing: its worker-ID
// lease has expired, or may have, and has not been renewed.
var ErrGateClosed = errors.New("snowflake: gate closed: the worker ID is not held")

// processStart anchors Gate deadlines to the monotonic clock.
var processStart = time.Now()

// Gate lets an outside authority, such as a worker-ID lease, stop a Generator: IDs are issued
// only while the clock is before the gate's deadline, judged by both Go's monotonic clock
// and the wall clock. The monotonic clock is immune to clock steps but stops while a
// machine is suspended; the wall clock keeps counting through a suspend. Either one past
// the deadline closes the gate, so a resumed VM refuses at once. A generator with a gate
// reads the clock on every ID, so that a process resumed after a pause (a stop signal, a
// long GC pause, a suspended VM) refuses to issue before anything else runs. The zero Gate
// is closed. Safe for concurrent use.
type Gate struct {
	until     atomic.Int64 // deadline, nanoseconds after processStart; 0 is closed
	wallUntil atomic.Int64 // the same deadline in Unix nanoseconds
}

// OpenUntil allows issuing until deadline.
func (g *Gate) OpenUntil(deadline time.Time) {
	d := int64(deadline.Sub(processStart))
	if d <= 0 {
		d = 0
	}
	g.wallUntil.Store(deadline.UnixNano())
	g.until.Store(d)
}

// Close stops issuing at once.
func (g *Gate) Close() { g.until.Store(0) }

// Open reports whether the gate allows issuing now.
func (g *Gate) Open() bool {
	now := time.Now()
	return int64(now.Sub(processStart)) < g.until.Load() && now.UnixNano() < g.wallUntil.Load()
}

// Deadline returns the time the gate closes, or the zero time if it is closed.
func (g *Gate) Deadline() time.Time {
	u := g.until.Load()
	if u == 0 {
		return time.Time{}
	}
	return processStart.Add(time.Duration(u))
}
