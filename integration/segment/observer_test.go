package segment_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/idgen/idgen/runtime/segment"
)

// recorder is an Observer that keeps what it heard.
type recorder struct {
	mu  sync.Mutex
	got []reservation
}

type reservation struct {
	tag string
	n   int64
	d   time.Duration
	err error
}

func (r *recorder) Reserved(tag string, n int64, d time.Duration, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, reservation{tag, n, d, err})
}

func (r *recorder) heard() []reservation {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]reservation(nil), r.got...)
}

// TestObserver: the Observer hears each reservation, successful or not, before the caller
// that waited for it gets its ID, with the block's size and the time the store took.
func TestObserver(t *testing.T) {
	f := &flaky{Store: openT(t, sqliteTarget(t)), latency: time.Millisecond}
	rec := &recorder{}
	clock := newFakeClock()
	a := newT(t, f, "order", segment.Options{Step: 10, MinStep: 10, MaxStep: 10, Retry: time.Hour, Now: clock.Now, Observer: rec})
	ctx := context.Background()
	if _, err := a.NextInt64(ctx); err != nil {
		t.Fatal(err)
	}
	got := rec.heard()
	if len(got) != 1 || got[0].tag != "order" || got[0].n != 10 || got[0].err != nil || got[0].d < time.Millisecond {
		t.Fatalf("after the first ID heard %+v, want one reservation of 10 order IDs taking at least the store's 1 ms", got)
	}
	// The second ID reaches the threshold: the next block is reserved in the background.
	if _, err := a.NextInt64(ctx); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the background reservation", func() bool { return len(rec.heard()) == 2 })
	f.set(true, false)
	if _, err := a.NextN(ctx, 18); err != nil { // the rest of both blocks
		t.Fatal(err)
	}
	if _, err := a.NextInt64(ctx); !errors.Is(err, segment.ErrUnavailable) {
		t.Fatalf("with the store down and nothing buffered: %v, want ErrUnavailable", err)
	}
	got = rec.heard()
	if len(got) != 3 || got[1].n != 10 || got[1].err != nil || got[2].n != 0 || !errors.Is(got[2].err, errDown) {
		t.Errorf("heard %+v, want a second block of 10 and a failure with the store's error", got)
	}
}
