package segmenttest

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/idgen/idgen/runtime/segment"
)

// Run checks the contract of segment.Store on the stores open returns, as subtests of t.
// open is called once per subtest and must return a store with no tags yet (a table or key
// prefix of its own), closing what it opened when t ends. Checked:
//
//   - "blocks": a tag's first block starts at 1, each next block starts right after the
//     previous one and holds step IDs, and tags count apart;
//   - "concurrent": eight goroutines reserving one tag at once, its first reservation
//     among them, get contiguous blocks that never overlap;
//   - "refused": an empty tag and a step below 1 are errors.
func Run(t *testing.T, open func(t *testing.T) segment.Store) {
	t.Run("blocks", func(t *testing.T) { blocks(t, open(t)) })
	t.Run("concurrent", func(t *testing.T) { concurrent(t, open(t)) })
	t.Run("refused", func(t *testing.T) { refused(t, open(t)) })
}

func blocks(t *testing.T, s segment.Store) {
	ctx := context.Background()
	want := segment.Range{First: 1, Last: 0}
	for _, step := range []int64{10, 1, 100} {
		r, err := s.Reserve(ctx, "order", step)
		want = segment.Range{First: want.Last + 1, Last: want.Last + step}
		if err != nil || r != want {
			t.Fatalf("Reserve(order, %d) = %v, %v; want %v", step, r, err, want)
		}
	}
	if r, err := s.Reserve(ctx, "payment", 5); err != nil || r != (segment.Range{First: 1, Last: 5}) {
		t.Errorf("Reserve(payment, 5) = %v, %v; want [1, 5]", r, err)
	}
}

func concurrent(t *testing.T, s segment.Store) {
	ctx := context.Background()
	var (
		mu  sync.Mutex
		got []segment.Range
		wg  sync.WaitGroup
	)
	for range 8 {
		wg.Go(func() {
			for range 10 {
				r, err := s.Reserve(ctx, "race", 7)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				got = append(got, r)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	slices.SortFunc(got, func(a, b segment.Range) int { return int(a.First - b.First) })
	next := int64(1)
	for _, r := range got {
		if r.First != next || r.Len() != 7 {
			t.Fatalf("concurrent blocks %v: want contiguous blocks of 7 from 1", got)
		}
		next = r.Last + 1
	}
	if len(got) != 80 && !t.Failed() {
		t.Errorf("%d blocks, want 80", len(got))
	}
}

func refused(t *testing.T, s segment.Store) {
	ctx := context.Background()
	for _, tc := range []struct {
		tag  string
		step int64
	}{{"", 1}, {"x", 0}, {"x", -1}} {
		if _, err := s.Reserve(ctx, tc.tag, tc.step); err == nil {
			t.Errorf("Reserve(%q, %d) succeeded", tc.tag, tc.step)
		}
	}
}
