package segment_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/idgen/idgen/runtime/segment"
)

// TestFloor: an allocator whose store's block does not start above the floor (a tag that
// restarted at 1 beside an old service at 5000) serves nothing and says what to change;
// one whose counter was moved above the floor serves from there.
func TestFloor(t *testing.T) {
	ctx := context.Background()
	s := &memStore{}
	a := newT(t, s, "orders", segment.Options{Step: 100, Floor: 5000})
	_, err := a.Next()
	var fe *segment.FloorError
	if !errors.As(err, &fe) || !errors.Is(err, segment.ErrBelowFloor) || fe.Floor != 5000 || fe.Block != (segment.Range{First: 1, Last: 100}) {
		t.Fatalf("Next = %v, want a *FloorError of floor 5000", err)
	}
	const want = `segment: tag "orders": the store's block [1, 100] does not start above the floor 5000 (the highest ID already issued): ` +
		"move the tag's counter (max_id, the last ID the table handed out) up to at least 5000, never down, or correct the floor"
	if fe.Error() != want {
		t.Errorf("error\n%s\nwant\n%s", fe.Error(), want)
	}
	s.mu.Lock()
	s.max["orders"] = 5000
	s.mu.Unlock()
	b := newT(t, s, "orders", segment.Options{Step: 100, Floor: 5000})
	if id, err := b.NextInt64(ctx); err != nil || id != 5001 {
		t.Fatalf("NextInt64 above the floor = %d, %v; want 5001", id, err)
	}
	if fe.CounterIsNext || fe.MinCounter() != 5000 {
		t.Errorf("on a counter of the last ID: CounterIsNext %v, MinCounter %d; want false, 5000", fe.CounterIsNext, fe.MinCounter())
	}
	if _, err := segment.New(s, "orders", segment.Options{Floor: -1}); !errors.Is(err, segment.ErrInvalidOptions) {
		t.Errorf("New with floor -1 = %v", err)
	}
}

// nextStore counts as Leaf's leaf_alloc does: max_id is the next ID, and a block of step
// IDs runs from the old max_id to the new one minus 1.
type nextStore struct {
	mu  sync.Mutex
	max int64
}

func (s *nextStore) Reserve(_ context.Context, _ string, step int64) (segment.Range, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.max += step
	return segment.Range{First: s.max - step, Last: s.max - 1}, nil
}

func (s *nextStore) CounterIsNext() bool { return true }

// TestFloorNextCounter: on a store whose counter is the next ID (Leaf's max_id), a counter
// equal to the floor would hand the floor out again: the advice is floor+1, and following
// it the allocator starts above the floor. (The advice said "at least 5000", which Leaf
// takes as its next ID: 5000 again.)
func TestFloorNextCounter(t *testing.T) {
	ctx := context.Background()
	s := &nextStore{max: 5000}
	a := newT(t, s, "orders", segment.Options{Step: 100, Floor: 5000})
	_, err := a.Next()
	var fe *segment.FloorError
	if !errors.As(err, &fe) || fe.Block != (segment.Range{First: 5000, Last: 5099}) || !fe.CounterIsNext || fe.MinCounter() != 5001 {
		t.Fatalf("Next = %v, want a *FloorError of block [5000, 5099], counter at least 5001", err)
	}
	const want = `segment: tag "orders": the store's block [5000, 5099] does not start above the floor 5000 (the highest ID already issued): ` +
		"move the tag's counter (max_id, the next ID the table hands out) up to at least 5001, never down, or correct the floor"
	if fe.Error() != want {
		t.Errorf("error\n%s\nwant\n%s", fe.Error(), want)
	}
	s.mu.Lock()
	s.max = fe.MinCounter()
	s.mu.Unlock()
	b := newT(t, s, "orders", segment.Options{Step: 100, Floor: 5000})
	if id, err := b.NextInt64(ctx); err != nil || id != 5001 {
		t.Fatalf("NextInt64 with the counter at %d = %d, %v; want 5001", fe.MinCounter(), id, err)
	}
}
