package segment_test

import (
	"context"
	"errors"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/idgen/idgen/runtime/segment"
	"github.com/idgen/idgen/runtime/segment/segmenttest"
)

// TestStore runs the contract of every Store (segmenttest.Run) on each store, each
// subtest on a namespace named for it.
func TestStore(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			segmenttest.Run(t, func(t *testing.T) segment.Store {
				return openT(t, k.setup(t, "store"+path.Base(t.Name())))
			})
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

// tagStore is what SQL and redissegment.Store offer beyond Reserve: tags created at a
// chosen start, and the list of tags.
type tagStore interface {
	segment.Store
	Create(ctx context.Context, tag string, first, step int64) error
	Tags(ctx context.Context) ([]segment.Counter, error)
}

// TestCreateTags checks every store: Create starts a tag where asked, refuses a tag the
// store has (leaving its counter), refuses bad arguments, and Tags lists every tag with
// its counter.
func TestCreateTags(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			s, ok := openT(t, k.setup(t, "tags")).(tagStore)
			if !ok {
				t.Fatalf("%s store %T has no Create and Tags", k.name, s)
			}
			ctx := context.Background()
			if tags, err := s.Tags(ctx); err != nil || len(tags) != 0 {
				t.Fatalf("Tags of an empty store = %v, %v", tags, err)
			}
			if err := s.Create(ctx, "invoice", 1_000_000, 50); err != nil {
				t.Fatal(err)
			}
			if r, err := s.Reserve(ctx, "invoice", 50); err != nil || r != (segment.Range{First: 1_000_000, Last: 1_000_049}) {
				t.Fatalf("first block of a tag created at 1,000,000: %v, %v", r, err)
			}
			if err := s.Create(ctx, "invoice", 1, 50); !errors.Is(err, segment.ErrTagExists) {
				t.Fatalf("Create of an existing tag = %v, want ErrTagExists", err)
			}
			if r, err := s.Reserve(ctx, "invoice", 1); err != nil || r.First != 1_000_050 {
				t.Fatalf("after a refused Create: %v, %v; want the counter kept", r, err)
			}
			// A tag reserved before, never created, exists as well.
			if _, err := s.Reserve(ctx, "order", 10); err != nil {
				t.Fatal(err)
			}
			if err := s.Create(ctx, "order", 5, 10); !errors.Is(err, segment.ErrTagExists) {
				t.Fatalf("Create of a reserved tag = %v, want ErrTagExists", err)
			}
			for _, bad := range []struct {
				tag         string
				first, step int64
			}{{"", 1, 1}, {"x", 0, 1}, {"x", 1, 0}, {"x", -5, 1}} {
				if err := s.Create(ctx, bad.tag, bad.first, bad.step); err == nil || errors.Is(err, segment.ErrTagExists) {
					t.Errorf("Create(%q, %d, %d) = %v, want refused", bad.tag, bad.first, bad.step, err)
				}
			}
			tags, err := s.Tags(ctx)
			if err != nil {
				t.Fatal(err)
			}
			want := []segment.Counter{{Tag: "invoice", Max: 1_000_050, Step: 1}, {Tag: "order", Max: 10, Step: 10}}
			if strings.HasPrefix(k.name, "redis") {
				want[0].Step, want[1].Step = 0, 0 // Redis keeps no step
			}
			if !slices.Equal(tags, want) {
				t.Fatalf("Tags = %+v, want %+v", tags, want)
			}
		})
	}
}
