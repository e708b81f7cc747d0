// Package snowflaketest provides a manual clock for testing code built on package
// snowflake: time moves only when the test says so, so rollbacks, exhausted ticks and waits
// are deterministic.
package snowflaketest

import (
	"context"
	"sync"
	"time"
)

// Clock is a snowflake.Clock whose time moves only by Advance and Set. Like a real clock
// it keeps wall time and elapsed (monotonic) time apart: Set steps the wall time, as NTP
// would, while sleepers wake after their duration of Advance, whatever Set did meanwhile.
// It is safe for concurrent use.
type Clock struct {
	mu       sync.Mutex
	now      time.Time
	elapsed  time.Duration
	auto     bool
	sleepers []*sleeper
	slept    []time.Duration
	changed  chan struct{} // closed and replaced whenever sleepers change
}

type sleeper struct {
	until time.Duration
	wake  chan struct{}
}

// NewClock returns a clock reading t.
func NewClock(t time.Time) *Clock {
	return &Clock{now: t, changed: make(chan struct{})}
}

// Now returns the clock's wall time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Sleep blocks until the clock has advanced by d, or ctx is done. With AutoAdvance on it
// advances the clock by d itself and returns at once.
func (c *Clock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	c.slept = append(c.slept, d)
	if c.auto || d <= 0 {
		c.mu.Unlock()
		if d > 0 {
			c.Advance(d)
		}
		return ctx.Err()
	}
	s := &sleeper{until: c.elapsed + d, wake: make(chan struct{})}
	c.sleepers = append(c.sleepers, s)
	c.notify()
	c.mu.Unlock()
	select {
	case <-s.wake:
		return nil
	case <-ctx.Done():
		c.mu.Lock()
		c.remove(s)
		c.mu.Unlock()
		return ctx.Err()
	}
}

// Advance moves wall and elapsed time forward by d and wakes the sleepers whose time has
// come.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	c.elapsed += d
	kept := c.sleepers[:0]
	for _, s := range c.sleepers {
		if s.until <= c.elapsed {
			close(s.wake)
			continue
		}
		kept = append(kept, s)
	}
	if len(kept) != len(c.sleepers) {
		clear(c.sleepers[len(kept):])
		c.sleepers = kept
		c.notify()
	}
}

// Set steps the wall time to t, backwards or forwards, leaving sleepers alone.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// Monotonic returns a clock that reads c's wall time at this call plus the time Advance
// has added since, the way snowflake.SystemClock reads the system clock: the wall clock
// once, then the monotonic clock. Set does not move it, so a test can step the wall clock
// under it (as NTP would) or let the wall clock run on while it stands still (as on a
// suspended machine, where Go's monotonic clock stops). It sleeps on c.
func (c *Clock) Monotonic() *Monotonic {
	c.mu.Lock()
	defer c.mu.Unlock()
	return &Monotonic{c: c, anchor: c.now, from: c.elapsed}
}

// Monotonic is a view of a Clock that moves only with Advance; see Clock.Monotonic. It is
// safe for concurrent use.
type Monotonic struct {
	c      *Clock
	anchor time.Time     // c's wall time when the view was made
	from   time.Duration // c's elapsed time then
}

// Now returns the wall time the view was made at plus the elapsed time since.
func (m *Monotonic) Now() time.Time {
	m.c.mu.Lock()
	defer m.c.mu.Unlock()
	return m.anchor.Add(m.c.elapsed - m.from)
}

// Sleep is the underlying Clock's Sleep.
func (m *Monotonic) Sleep(ctx context.Context, d time.Duration) error { return m.c.Sleep(ctx, d) }

// AutoAdvance makes Sleep advance the clock by its duration and return at once, for tests
// that drive a generator from one goroutine.
func (c *Clock) AutoAdvance(on bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.auto = on
}

// Sleepers returns how many goroutines are blocked in Sleep.
func (c *Clock) Sleepers() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.sleepers)
}

// WaitSleepers blocks until exactly n goroutines are blocked in Sleep, or ctx is done.
func (c *Clock) WaitSleepers(ctx context.Context, n int) error {
	for {
		c.mu.Lock()
		got, ch := len(c.sleepers), c.changed
		c.mu.Unlock()
		if got == n {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Slept returns every duration passed to Sleep so far, in order.
func (c *Clock) Slept() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.slept...)
}

func (c *Clock) remove(s *sleeper) {
	for i, x := range c.sleepers {
		if x == s {
			c.sleepers = append(c.sleepers[:i], c.sleepers[i+1:]...)
			c.notify()
			return
		}
	}
}

func (c *Clock) notify() {
	close(c.changed)
	c.changed = make(chan struct{})
}
