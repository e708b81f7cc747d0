package segment_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
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
// Next, NextN and NextRange (a range of many IDs, every Stride-th).
func TestStride(t *testing.T) {
	s := strideStore{delta: 2, rem: 1}
	a := newT(t, &s, "x", segment.Options{Step: 100, MaxStep: 100})
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
	if err != nil || r.Len() != 5 || r.Stride != 2 || r.First != 13 || r.Last != 21 {
		t.Fatalf("NextRange(5) = %+v (Len %d), %v; want 13 through 21, stride 2", r, r.Len(), err)
	}
	got = slices.AppendSeq(got, r.All())
	if id, err := a.Next(); err != nil || id != 23 {
		t.Fatalf("Next after the range = %d, %v; want 23", id, err)
	}
	want := []int64{1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21}
	if !slices.Equal(got, want) {
		t.Fatalf("IDs %v, want %v", got, want)
	}
	for id := r.First - 1; id <= r.Last+1; id++ {
		if in := r.Contains(id); in != (id%2 == 1 && id >= 13 && id <= 21) {
			t.Errorf("%+v.Contains(%d) = %v", r, id, in)
		}
	}
	// A range is cut at the end of its block: 50 odd IDs a block of step 100.
	r, err = a.NextRange(t.Context(), 1000)
	if err != nil || r.First != 25 || r.Last != 99 || r.Len() != 38 {
		t.Fatalf("NextRange(1000) = %+v (Len %d), %v; want the rest of the block, 25 through 99", r, r.Len(), err)
	}
}

// TestStrideConcurrent: callers of Next, NextN and NextRange at once, over a store with
// delta 3 and remainder 2 and blocks of every size, are handed IDs of remainder 2 only,
// none twice, and together exactly the first IDs of the blocks reserved, in order: no
// gap within a block.
func TestStrideConcurrent(t *testing.T) {
	s := &strideStore{delta: 3, rem: 2}
	a := newT(t, s, "x", segment.Options{Step: 31, MinStep: 7, MaxStep: 301})
	const callers, calls = 8, 300
	out := make([][]int64, callers)
	errs := make(chan error, callers)
	var wg sync.WaitGroup
	for c := range callers {
		wg.Go(func() {
			for i := range calls {
				switch (c + i) % 3 {
				case 0:
					id, err := a.Next()
					if err != nil {
						errs <- err
						return
					}
					out[c] = append(out[c], id)
				case 1:
					ids, err := a.NextN(t.Context(), 1+i%7)
					if err != nil {
						errs <- err
						return
					}
					out[c] = append(out[c], ids...)
				default:
					r, err := a.NextRange(t.Context(), int64(1+i%50))
					if err != nil {
						errs <- err
						return
					}
					if r.Stride != 3 || r.Len() < 1 || r.Len() > int64(1+i%50) || (r.Last-r.First)%3 != 0 {
						errs <- fmt.Errorf("NextRange(%d) = %+v (Len %d)", 1+i%50, r, r.Len())
						return
					}
					out[c] = slices.AppendSeq(out[c], r.All())
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	var got []int64
	for _, ids := range out {
		got = append(got, ids...)
	}
	slices.Sort(got)
	var want []int64
	s.mu.Lock()
	for _, b := range s.blocks {
		want = slices.AppendSeq(want, b.All())
	}
	s.mu.Unlock()
	if len(got) > len(want) {
		t.Fatalf("%d IDs handed out from blocks holding %d", len(got), len(want))
	}
	for i, id := range got {
		if id%3 != 2 {
			t.Fatalf("ID %d: remainder %d modulo 3, want 2", id, id%3)
		}
		if id != want[i] {
			t.Fatalf("ID %d of %d is %d, want %d (a duplicate or a gap)", i, len(got), id, want[i])
		}
	}
	if len(got) < callers*calls {
		t.Fatalf("%d IDs handed out, want at least %d", len(got), callers*calls)
	}
}

// strideStore hands out consecutive spans of step as tinyid does on a database with
// delta and remainder rem, keeping the blocks it returned. Safe for concurrent use.
type strideStore struct {
	delta, rem int64

	mu     sync.Mutex
	max    int64
	blocks []segment.Range
}

func (s *strideStore) Reserve(_ context.Context, _ string, step int64) (segment.Range, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.max
	s.max += step
	r := segment.TinyidBlock(old, s.max, s.delta, s.rem)
	s.blocks = append(s.blocks, r)
	return r, nil
}
