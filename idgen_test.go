package idgen_test

import (
	"context"
	"errors"
	"testing"

	"github.com/idgen/idgen"
	"github.com/idgen/idgen/runtime/snowflake"
)

// counter is a Source of dense counters, as runtime/segment's Allocator is.
type counter struct{ n int64 }

func (c *counter) NextInt64(context.Context) (int64, error) { c.n++; return c.n, nil }
func (c *counter) Timeless() bool                           { return true }

func TestNextTimed(t *testing.T) {
	gen, err := snowflake.New(snowflake.Classic(), 1, snowflake.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	refused := &counter{}
	for _, tc := range []struct {
		name string
		src  idgen.Source
		want error
	}{
		{"snowflake generator", gen, nil},
		{"counter", refused, idgen.ErrTimeless},
		{"no source, no default", nil, idgen.ErrNoSource},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := idgen.NextTimed(ctx, tc.src, snowflake.Classic())
			if !errors.Is(err, tc.want) {
				t.Fatalf("NextTimed = %v, want %v", err, tc.want)
			}
		})
	}
	if refused.n != 0 {
		t.Fatalf("NextTimed took %d IDs from the source it refused", refused.n)
	}
	// A counter is still a Source for typed snowflake IDs: only the time is meaningless.
	if id, err := idgen.NextSnowflake(ctx, &counter{}, snowflake.Classic()); err != nil || id != 1 {
		t.Fatalf("NextSnowflake(counter) = %d, %v", id, err)
	}
}
