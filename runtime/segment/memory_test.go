package segment_test

import (
	"context"
	"math"
	"testing"

	"github.com/idgen/idgen/runtime/segment"
)

// TestMemory: the public in-memory Store reserves consecutive blocks per tag, each tag
// from 1, and refuses a step that is not positive or would overflow.
func TestMemory(t *testing.T) {
	ctx := context.Background()
	m := segment.NewMemory()
	for _, tc := range []struct {
		tag  string
		step int64
		want segment.Range
		err  bool
	}{
		{"a", 10, segment.Range{First: 1, Last: 10}, false},
		{"a", 5, segment.Range{First: 11, Last: 15}, false},
		{"b", 3, segment.Range{First: 1, Last: 3}, false},
		{"a", 0, segment.Range{}, true},
		{"a", -1, segment.Range{}, true},
		{"a", math.MaxInt64 - 15, segment.Range{First: 16, Last: math.MaxInt64}, false},
		{"a", 1, segment.Range{}, true},
		{"b", 1, segment.Range{First: 4, Last: 4}, false},
	} {
		r, err := m.Reserve(ctx, tc.tag, tc.step)
		if (err != nil) != tc.err || r != tc.want {
			t.Fatalf("Reserve(%q, %d) = %+v, %v; want %+v, error %t", tc.tag, tc.step, r, err, tc.want, tc.err)
		}
	}
}
