package lease_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/idgen/idgen/runtime/lease"
)

// TestMemory: the public in-memory Backend keeps the Backend contract, step by step on one
// store: the lowest free ID, fresh first claims, every ID held, renewals of a lease that is
// held, taken, expired or unknown, and a release that frees the ID and passes on the last
// tick.
func TestMemory(t *testing.T) {
	ctx := context.Background()
	m := lease.NewMemory()
	tick := time.Now().Add(-time.Minute)
	lost := func(taken bool) func(error) bool {
		return func(err error) bool {
			var l *lease.LostError
			return errors.As(err, &l) && l.Taken == taken
		}
	}
	for _, step := range []struct {
		name string
		do   func() (lease.Claim, error)
		want func(lease.Claim) bool
		err  func(error) bool
	}{
		{"a claims 0, fresh", func() (lease.Claim, error) { return m.Acquire(ctx, 1, "a", time.Hour) },
			func(c lease.Claim) bool { return c.Worker == 0 && c.Fresh && c.Expires.After(time.Now()) }, nil},
		{"b claims 1, fresh", func() (lease.Claim, error) { return m.Acquire(ctx, 1, "b", 50*time.Millisecond) },
			func(c lease.Claim) bool { return c.Worker == 1 && c.Fresh }, nil},
		{"c finds both held", func() (lease.Claim, error) { return m.Acquire(ctx, 1, "c", time.Hour) },
			nil, func(err error) bool { return errors.Is(err, lease.ErrAllTaken) }},
		{"a renews 0, recording a tick", func() (lease.Claim, error) { return lease.Claim{}, m.Renew(ctx, 0, "a", time.Hour, tick) }, nil, nil},
		{"b cannot renew 0", func() (lease.Claim, error) { return lease.Claim{}, m.Renew(ctx, 0, "b", time.Hour, tick) }, nil, lost(true)},
		{"nobody renews 5", func() (lease.Claim, error) { return lease.Claim{}, m.Renew(ctx, 5, "a", time.Hour, tick) }, nil, lost(false)},
		{"b's lease on 1 expires", func() (lease.Claim, error) {
			time.Sleep(60 * time.Millisecond) // past b's 50 ms TTL: expiry is by the clock
			return lease.Claim{}, m.Renew(ctx, 1, "b", time.Hour, tick)
		}, nil, func(err error) bool {
			var l *lease.LostError
			return errors.As(err, &l) && !l.Taken && !l.Expired.IsZero()
		}},
		{"b cannot release 0", func() (lease.Claim, error) { return lease.Claim{}, m.Release(ctx, 0, "b", tick) }, nil, lost(true)},
		{"a releases 0", func() (lease.Claim, error) { return lease.Claim{}, m.Release(ctx, 0, "a", tick.Add(-time.Second)) }, nil, nil},
		{"c claims 0 with a's last tick", func() (lease.Claim, error) { return m.Acquire(ctx, 0, "c", time.Hour) },
			func(c lease.Claim) bool { return c.Worker == 0 && !c.Fresh && c.Last.Equal(tick) && !c.Prev.IsZero() }, nil},
	} {
		c, err := step.do()
		switch {
		case step.err != nil && (err == nil || !step.err(err)):
			t.Fatalf("%s: error %v, not the one expected", step.name, err)
		case step.err == nil && err != nil:
			t.Fatalf("%s: %v", step.name, err)
		case step.want != nil && !step.want(c):
			t.Fatalf("%s: claim %+v", step.name, c)
		}
	}
}
