package segment_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/idgen/idgen/runtime/segment"
)

// TestStore checks every store: blocks of one tag follow each other from 1, tags are
// independent, concurrent reservations (including the first one of a tag, which inserts
// it) never overlap, and bad arguments are refused.
func TestStore(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			s := openT(t, k.setup(t, "store"))
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

			// Eight goroutines race, the first reservation of the tag among them.
			var mu sync.Mutex
			var got []segment.Range
			var wg sync.WaitGroup
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

			for _, tc := range []struct {
				tag  string
				step int64
			}{{"", 1}, {"x", 0}, {"x", -1}} {
				if _, err := s.Reserve(ctx, tc.tag, tc.step); err == nil {
					t.Errorf("Reserve(%q, %d) succeeded", tc.tag, tc.step)
				}
			}
		})
	}
}

// TestSQLCreateTable: CreateTable is idempotent, a max_id set by hand moves a tag's start,
// and a store error is the store's, not ErrUnavailable (that is the Allocator's).
func TestSQLCreateTable(t *testing.T) {
	s, db := openSQLite(t)
	ctx := context.Background()
	if err := s.CreateTable(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateTable(ctx); err != nil {
		t.Fatal(err)
	}
	// max_id set by hand moves a tag's start.
	if _, err := db.ExecContext(ctx, "INSERT INTO idgen_segment (tag, max_id, step) VALUES ('late', 5000, 0)"); err != nil {
		t.Fatal(err)
	}
	if r, err := s.Reserve(ctx, "late", 10); err != nil || r != (segment.Range{First: 5001, Last: 5010}) {
		t.Errorf("Reserve(late) = %v, %v; want [5001, 5010]", r, err)
	}
	db.Close()
	if _, err := s.Reserve(ctx, "late", 10); err == nil || errors.Is(err, segment.ErrUnavailable) {
		t.Errorf("Reserve on a closed database: %v", err)
	}
}
