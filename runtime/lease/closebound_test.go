package lease_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/idgen/idgen/runtime/lease"
	"github.com/idgen/idgen/runtime/snowflake"
)

// releaseSpy records the last a Release was given.
type releaseSpy struct {
	*mem
	mu   sync.Mutex
	last time.Time
}

func (r *releaseSpy) Release(ctx context.Context, w int64, token string, last time.Time) error {
	r.mu.Lock()
	r.last = last
	r.mu.Unlock()
	return r.mem.Release(ctx, w, token, last)
}

// TestCloseRecordsABound: Close records a time no earlier than the clock at the Close, not
// only the generator's last stamp: a caller still inside the generator when the gate
// closed may stamp up to the clock it read (plus the drift), and the release time the
// store keeps is rounded down to its millisecond, which a layout whose ticks start off
// the millisecond (here half a millisecond after) does not cover.
func TestCloseRecordsABound(t *testing.T) {
	layout := snowflake.Classic()
	layout.Epoch = layout.Epoch.Add(500 * time.Microsecond)
	spy := &releaseSpy{mem: newUsedMem(8)}
	l, err := lease.Acquire(context.Background(), spy, lease.Config{Layout: layout, MaxWorker: 7, TTL: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Next(); err != nil {
		t.Fatal(err)
	}
	before := time.Now()
	if err := l.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	spy.mu.Lock()
	defer spy.mu.Unlock()
	if spy.last.Before(before) {
		t.Errorf("Close recorded %v, before the Close began at %v: a stamp racing the Close could reach the next holder's first tick", spy.last, before)
	}
}
