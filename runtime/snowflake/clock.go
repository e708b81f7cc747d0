package snowflake

import (
	"context"
	"time"
)

// Clock is where a Generator reads time and waits for it. Tests inject a manual clock
// (package snowflaketest) to make rollbacks and exhaustion deterministic.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// Sleep pauses for d, or until ctx is done, when it returns ctx.Err().
	Sleep(ctx context.Context, d time.Duration) error
}

// SystemClock returns a clock that reads the wall clock once, now, and from then on
// advances with Go's monotonic clock: a step of the system clock while the process runs,
// forwards or backwards, does not move it.
func SystemClock() Clock { return &systemClock{anchor: time.Now()} }

type systemClock struct{ anchor time.Time }

// Now returns the anchor plus the monotonic time elapsed since it.
func (c *systemClock) Now() time.Time { return c.anchor.Add(time.Since(c.anchor)) }

// Sleep parks the caller: it never spins.
func (c *systemClock) Sleep(ctx context.Context, d time.Duration) error {
	if ctx.Done() == nil {
		time.Sleep(d)
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
