package segment_test

import (
	"context"
	"errors"
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
		"move the tag's counter (max_id) up to at least 5000, never down (SQL.Create starts a new tag at 5001), or correct the floor"
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
	if _, err := segment.New(s, "orders", segment.Options{Floor: -1}); !errors.Is(err, segment.ErrInvalidOptions) {
		t.Errorf("New with floor -1 = %v", err)
	}
}
