package dataplane

import (
	"context"
	"sync/atomic"
	"time"
)

// callContext bounds a call's work by CallTimeout, from now.
//
// An ID is almost always drawn without a wait: from a segment's buffer, or from the
// generator's cached clock, paths that never look at the context. Only a wait (a
// reservation from the store, the clock, a fresh lease) asks for Done. So the deadline is
// fixed now but its timer, and its registration with the request's context, are made
// when something first asks for Done: context.WithTimeout's, made for every call, cost
// about 1 us and 7% of the server's CPU on Leaf's path.
func callContext(parent context.Context) (context.Context, context.CancelFunc) {
	return withLazyTimeout(parent, CallTimeout)
}

// withLazyTimeout is callContext with timeout d.
func withLazyTimeout(parent context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	c := &callCtx{parent: parent, deadline: time.Now().Add(d)}
	return c, c.stop
}

// callCtx is the context of withLazyTimeout: parent with a deadline whose timer is started
// by the first Done (or Err past the deadline). Safe for concurrent use.
type callCtx struct {
	parent   context.Context
	deadline time.Time
	// timed is parent with the deadline, once started; stopped once the call ended
	// without it.
	timed atomic.Pointer[timedCtx]
}

type timedCtx struct {
	ctx    context.Context
	cancel context.CancelFunc
}

// stopped stands for a callCtx whose call ended before anything waited on it.
var stopped = func() *timedCtx {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return &timedCtx{ctx: ctx, cancel: cancel}
}()

// start returns the timed context, making it on the first call.
func (c *callCtx) start() *timedCtx {
	if t := c.timed.Load(); t != nil {
		return t
	}
	ctx, cancel := context.WithDeadline(c.parent, c.deadline)
	t := &timedCtx{ctx: ctx, cancel: cancel}
	if !c.timed.CompareAndSwap(nil, t) {
		cancel() // another goroutine started it (or the call ended) first
		return c.timed.Load()
	}
	return t
}

// stop ends the call: the timer, if started, is stopped; else the context reads as
// canceled from now on.
func (c *callCtx) stop() {
	if c.timed.CompareAndSwap(nil, stopped) {
		return
	}
	c.timed.Load().cancel()
}

// Deadline is the call's deadline, or the parent's when that is earlier.
func (c *callCtx) Deadline() (time.Time, bool) {
	if d, ok := c.parent.Deadline(); ok && d.Before(c.deadline) {
		return d, true
	}
	return c.deadline, true
}

// Done starts the timer.
func (c *callCtx) Done() <-chan struct{} { return c.start().ctx.Done() }

// Err reads the parent and the clock until the timer is started; once either says
// done it starts the timer, so that Done, Err and context.Cause agree from then on and
// Err keeps its answer.
func (c *callCtx) Err() error {
	if t := c.timed.Load(); t != nil {
		return t.ctx.Err()
	}
	if c.parent.Err() != nil || !time.Now().Before(c.deadline) {
		// Started, so that the answer is kept: a stop after it cannot turn the
		// parent's DeadlineExceeded into Canceled.
		return c.start().ctx.Err()
	}
	return nil
}

// Value is the timed context's once started (so that a context made from this one is
// canceled with it, without a goroutine), the parent's before. Once stopped without a
// timer, the context package's own key finds the stopped context first (so that
// context.Cause stays Canceled whatever the parent does later), every other key the
// parent's value.
func (c *callCtx) Value(key any) any {
	switch t := c.timed.Load(); t {
	case nil:
		return c.parent.Value(key)
	case stopped:
		if v := stopped.ctx.Value(key); v != nil {
			return v
		}
		return c.parent.Value(key)
	default:
		return t.ctx.Value(key)
	}
}

func (c *callCtx) String() string { return "dataplane.callContext" }
