package consume

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/idgen/idgen/runtime/ledger"
)

// ErrUnavailable is matched by errors that say the store, not the message, failed. A
// handler whose effect lives in a store of its own (a service it calls) marks such an
// error with it, fmt.Errorf("calling billing: %w: %w", consume.ErrUnavailable, err), so
// that the adapter pauses instead of spending the message's attempts.
var ErrUnavailable = errors.New("consume: the store is unavailable")

// Unavailable reports whether err is a failure of the store or of the connection to it
// rather than of the message: an error matching ErrUnavailable, or one ledger.Unavailable
// recognises (a refused, closed or reset connection, a server shutting down or starting
// up, a timeout, a deadlock or serialization failure). The adapters pause on such an
// error (Gate) and try the message again without counting the attempt; any other error
// from a Processor counts toward the message's attempts.
func Unavailable(err error) bool {
	return err != nil && (errors.Is(err, ErrUnavailable) || ledger.Unavailable(err))
}

// Defaults of Gate.
const (
	// DefaultMinPause is the first pause after the store became unavailable.
	DefaultMinPause = 50 * time.Millisecond
	// DefaultMaxPause is the longest pause between two tries of an unavailable store, and
	// so about the longest a consumer takes to resume once the store is back.
	DefaultMaxPause = time.Second
)

// ProvenUp is how many attempts the store must answer, for other messages, between two
// failures of one message that look like the store's (Unavailable) for the second to be
// taken for the message's own and counted: a message whose handler fails like an outage
// while the store serves everyone else is a poison message, and is dead-lettered once its
// attempts are spent, rather than held for ever.
const ProvenUp = 16

// Gate pauses a consumer while its store is unavailable, so that an outage spends no
// message's attempts: the adapters run every Processor call through Run. While the store
// answers, Run runs the work at once. When the work fails with an Unavailable error, the
// Gate pauses (DefaultMinPause, doubling with each failed try, up to DefaultMaxPause, with
// jitter): workers wait before their next message, and when the pause is over one of
// them tries its message as the probe while the others wait; the first work that does
// not fail as unavailable ends the pause for all. A message that waits in a Gate holds its
// delivery (unacknowledged, kept in progress), so the broker neither redelivers it nor
// counts a delivery. The zero value is ready; a Gate is safe for concurrent use.
type Gate struct {
	// MinPause and MaxPause override DefaultMinPause and DefaultMaxPause when positive.
	MinPause, MaxPause time.Duration

	mu      sync.Mutex
	paused  bool
	probing bool // a worker is trying its message as the probe
	fails   int  // consecutive failed tries since the pause began
	until   time.Time
	changed chan struct{} // closed and replaced whenever the state above changes

	// down mirrors paused, written under mu and read without it (speed only: a try that
	// reads it stale starts as if it had begun before the pause, which leave handles).
	down     atomic.Bool
	answered atomic.Uint64 // tries the store answered (the ProvenUp rule)
}

// Paused reports whether the store is taken to be unavailable.
func (g *Gate) Paused() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.paused
}

// Run runs try, the work of one message, through the gate: at once while the store
// answers; while the store is paused, when the pause is over and it is this message's
// turn to probe. It runs try again, without counting an attempt, each time try fails with
// an Unavailable error, and calls unavailable with that error first (for the adapter's
// stats and OnError). It returns done true and try's result when try succeeded, failed
// with an error that is not Unavailable (the message's own, which counts), or failed as
// unavailable while the store answered ProvenUp other tries since this message's
// previous failure (which counts too). It returns done false, and the last unavailable
// error, when ctx ended while the message waited: the work was not done, and the adapter
// gives the message back to the broker.
func (g *Gate) Run(ctx context.Context, try func() error, unavailable func(error)) (done bool, err error) {
	var (
		failed   bool
		failedAt uint64
		last     error
	)
	for {
		probe, err := g.enter(ctx)
		if err != nil {
			return false, last
		}
		err = try()
		switch {
		case !Unavailable(err):
			g.leave(probe, answered)
			return true, err
		case failed && g.answered.Load()-failedAt >= ProvenUp:
			g.leave(probe, ownFailure)
			return true, err
		}
		g.leave(probe, down)
		unavailable(err)
		failed, failedAt, last = true, g.answered.Load(), err
	}
}

// The outcomes of one try, for leave.
const (
	answered   = iota // the store answered (the work succeeded, or failed on its own)
	down              // the store was unavailable
	ownFailure        // unavailable-looking, but the store is proven up: the message's own
)

// enter waits until a try may start, and reports whether it is the probe of a pause.
func (g *Gate) enter(ctx context.Context) (probe bool, err error) {
	if !g.down.Load() {
		return false, nil
	}
	g.mu.Lock()
	for {
		if !g.paused {
			g.mu.Unlock()
			return false, nil
		}
		if err := ctx.Err(); err != nil {
			g.mu.Unlock()
			return false, err
		}
		wait := time.Until(g.until)
		if !g.probing && wait <= 0 {
			g.probing = true
			g.mu.Unlock()
			return true, nil
		}
		changed, timed := g.waitChan(), !g.probing
		g.mu.Unlock()
		var timer *time.Timer
		var expired <-chan time.Time
		if timed { // else the probe's end wakes it
			timer = time.NewTimer(wait)
			expired = timer.C
		}
		select {
		case <-changed:
		case <-expired:
		case <-ctx.Done():
			if timer != nil {
				timer.Stop()
			}
			return false, ctx.Err()
		}
		if timer != nil {
			timer.Stop()
		}
		g.mu.Lock()
	}
}

// leave records the outcome of a try that enter let start.
func (g *Gate) leave(probe bool, outcome int) {
	if outcome == answered && !probe && !g.down.Load() {
		g.answered.Add(1)
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	before := g.state()
	if probe {
		g.probing = false
	}
	switch outcome {
	case answered, ownFailure:
		if outcome == answered {
			g.answered.Add(1)
		}
		g.paused, g.fails = false, 0
	case down:
		switch {
		case !g.paused:
			g.paused, g.fails = true, 1
			g.until = time.Now().Add(g.pause(1))
		case probe:
			g.fails++
			g.until = time.Now().Add(g.pause(g.fails))
		}
		// A try that began before the pause and failed leaves its schedule alone.
	}
	g.down.Store(g.paused)
	if g.state() != before {
		g.broadcast()
	}
}

type gateState struct {
	paused, probing bool
	fails           int
}

func (g *Gate) state() gateState { return gateState{g.paused, g.probing, g.fails} }

// pause is the pause after the nth failed try in a row: MinPause doubled n-1 times, at
// most MaxPause, less up to a quarter at random so that consumers do not probe in step.
func (g *Gate) pause(n int) time.Duration {
	lo, hi := g.MinPause, g.MaxPause
	if lo <= 0 {
		lo = DefaultMinPause
	}
	if hi <= 0 {
		hi = DefaultMaxPause
	}
	d := lo
	for i := 1; i < n && d < hi; i++ {
		d *= 2
	}
	d = min(d, hi)
	return d - rand.N(d/4+1)
}

// waitChan returns the channel closed at the next change; g.mu is held.
func (g *Gate) waitChan() chan struct{} {
	if g.changed == nil {
		g.changed = make(chan struct{})
	}
	return g.changed
}

// broadcast wakes every waiter; g.mu is held.
func (g *Gate) broadcast() {
	if g.changed != nil {
		close(g.changed)
		g.changed = nil
	}
}
