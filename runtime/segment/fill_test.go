package segment_test

import (
	"context"
	"errors"
	"testing"

	"github.com/idgen/idgen/runtime/segment"
)

// TestFill: Fill buffers a block without handing out an ID, so the first ID of a fresh
// tag is still 1; a second Fill reserves nothing; a store that fails is reported.
func TestFill(t *testing.T) {
	m := &memStore{}
	a := newT(t, m, "order", segment.Options{Step: 10})
	ctx := context.Background()
	for range 2 {
		if err := a.Fill(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if st := a.Stats(); st.Buffered != 10 || st.Reserved != 1 {
		t.Fatalf("after Fill: %+v, want 10 buffered from 1 reservation", st)
	}
	if id, err := a.NextInt64(ctx); id != 1 || err != nil {
		t.Fatalf("first ID after Fill: %d %v, want 1", id, err)
	}

	failing := &memStore{}
	down := errors.New("store down")
	failing.setFail(down)
	b := newT(t, failing, "order", segment.Options{Step: 10})
	var ue *segment.UnavailableError
	if err := b.Fill(ctx); !errors.As(err, &ue) || !errors.Is(err, down) {
		t.Fatalf("Fill with the store down: %v, want an UnavailableError of its cause", err)
	}
}
