package redissegment_test

import (
	"sync"
	"testing"
	"time"

	"github.com/idgen/idgen/runtime/segment"
)

// newT is segment.New for a test, failing it on error.
func newT(t testing.TB, s segment.Store, tag string, opts segment.Options) *segment.Allocator {
	t.Helper()
	a, err := segment.New(s, tag, opts)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// fakeClock is a clock the test moves by hand.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{t: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}
