package segment_test

import (
	"context"
	"testing"

	"github.com/idgen/idgen/runtime/segment"
)

// TestTinyidBlock: a tinyid block holds the IDs in (old, new] with tinyid's remainder
// modulo delta, as tinyid's SegmentId.init and nextId hand them out.
func TestTinyidBlock(t *testing.T) {
	for _, tc := range []struct {
		old, new, delta, rem int64
		want                 []int64
	}{
		{0, 5, 1, 0, []int64{1, 2, 3, 4, 5}},
		{0, 10, 2, 0, []int64{2, 4, 6, 8, 10}},
		{0, 10, 2, 1, []int64{1, 3, 5, 7, 9}},
		{5, 15, 3, 2, []int64{8, 11, 14}},
		{6, 9, 3, 0, []int64{9}},
	} {
		r := segment.TinyidBlock(tc.old, tc.new, tc.delta, tc.rem)
		var got []int64
		for id := r.First; id <= r.Last; id += max(1, r.Stride) {
			got = append(got, id)
		}
		// Every ID tinyid would hand out, counted by brute force.
		var brute []int64
		for id := tc.old + 1; id <= tc.new; id++ {
			if id%tc.delta == tc.rem {
				brute = append(brute, id)
			}
		}
		if len(got) != len(tc.want) || int64(len(got)) != r.Len() || len(brute) != len(got) {
			t.Fatalf("%+v: block %+v = %v (Len %d), want %v (brute force %v)", tc, r, got, r.Len(), tc.want, brute)
		}
		for i := range got {
			if got[i] != tc.want[i] || brute[i] != got[i] {
				t.Fatalf("%+v: block %v, want %v", tc, got, tc.want)
			}
		}
	}
}

// TestStride: an allocator over a strided store hands out every Stride-th ID, through
// Next, NextN and NextRange (one ID a range).
func TestStride(t *testing.T) {
	s := strideStore{}
	a := newT(t, &s, "x", segment.Options{Step: 10, MaxStep: 10})
	var got []int64
	for range 3 {
		id, err := a.Next()
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, id)
	}
	ids, err := a.NextN(t.Context(), 3)
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, ids...)
	r, err := a.NextRange(t.Context(), 5)
	if err != nil || r.Len() != 1 {
		t.Fatalf("NextRange = %+v, %v", r, err)
	}
	got = append(got, r.First)
	want := []int64{1, 3, 5, 7, 9, 11, 13}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("IDs %v, want %v", got, want)
		}
	}
}

// strideStore hands out the odd IDs of consecutive spans of step.
type strideStore struct{ max int64 }

func (s *strideStore) Reserve(_ context.Context, _ string, step int64) (segment.Range, error) {
	old := s.max
	s.max += step
	return segment.TinyidBlock(old, s.max, 2, 1), nil
}
