package snowflake

import (
	"errors"
	"sync/atomic"
	"time"
)

// ErrGateClosed is returned while a generator's Gate does not allow issuing: its worker-ID
// lease has expired, or may have, and has not been renewed.
var ErrGateClosed = errors.New("snowflake: gate closed: the worker ID is not held")

// Gate lets an outside authority, such as a worker-ID lease, stop a Generator: it issues
// only IDs stamped before the gate's deadline, a time on the generator's own clock
// (Options.Clock), and nothing once the gate is closed. The generator compares the tick it
// is about to stamp with the deadline (as a tick), so a gate costs no clock read.
//
// The bound is on stamps, not on when an ID is handed out: a process paused or suspended
// past its deadline (a stop signal, a long GC pause, a suspended VM whose monotonic clock
// stood still) may, on resuming, issue a few IDs stamped with the tick it cached before
// the pause, but never one stamped at or after the deadline. That is what keeps a worker
// ID's holders apart: the next holder stamps only after the lease's end, which is after
// the deadline. The zero Gate is closed. Safe for concurrent use.
type Gate struct {
	state atomic.Pointer[gateState] // nil: closed
}

// gateState is one opening of a Gate. It never changes: a new deadline is a new
// gateState, so a generator can key what it derived from one (the deadline as a tick) on
// the pointer.
type gateState struct{ deadline time.Time }

// OpenUntil allows IDs stamped before deadline, a time on the gated generator's clock:
// for the default clock, the wall time it read at start plus the monotonic time since.
// That is not what another SystemClock() or time.Now() reads after a wall-clock step: a
// gate's owner should give the generator its clock (Options.Clock) and read deadlines
// from that same clock, as runtime/lease does. It replaces any earlier deadline.
func (g *Gate) OpenUntil(deadline time.Time) {
	// Stamps are times on the generator's clock without a monotonic reading: compare
	// the deadline the same way.
	g.state.Store(&gateState{deadline: deadline.Round(0)})
}

// Close stops issuing at once. A caller already past the gate stamps from a clock
// reading (or cached tick) it made before it saw the gate open, so no ID is stamped from
// a reading made after the Close.
func (g *Gate) Close() { g.state.Store(nil) }

// Allows reports whether the gate lets an ID stamped at t be issued: it is open and t is
// before its deadline.
func (g *Gate) Allows(t time.Time) bool {
	s := g.state.Load()
	return s != nil && t.Round(0).Before(s.deadline)
}

// Deadline returns the time the gate closes, or the zero time if it is closed.
func (g *Gate) Deadline() time.Time {
	if s := g.state.Load(); s != nil {
		return s.deadline
	}
	return time.Time{}
}

// gateView is a gate's state as a generator uses it: the last tick stamped before the
// deadline, under the generator's layout.
type gateView struct {
	state *gateState
	last  int64 // -1 when closed, or when the deadline is at or before the epoch
}

// gateLast returns the last tick the gate lets g stamp an ID in, or -1 if it lets none.
// It reads two atomics, and converts the deadline to a tick only when the gate changed.
// The fast path has its own copy of the first lines: this one does not inline.
func (g *Generator) gateLast() int64 {
	if v := g.gview.Load(); v.state == g.gate.state.Load() {
		return v.last
	}
	return g.newGateView().last
}

// newGateView converts the gate's deadline to a tick, caches it and returns it.
func (g *Generator) newGateView() *gateView {
	s := g.gate.state.Load()
	v := &gateView{state: s, last: -1}
	if s != nil {
		// The last tick whose start is before the deadline. Sub saturates, so a deadline
		// beyond the layout's end gives a tick past maxTick, which bounds IDs anyway.
		if d := s.deadline.Sub(g.layout.Epoch); d > 0 {
			v.last = int64((d - 1) / g.layout.Unit)
		}
	}
	// Racing callers may store views of different states; each caller uses only the view
	// of the state it read, so a stale view costs a recomputation, never a wrong answer.
	g.gview.Store(v)
	return v
}
