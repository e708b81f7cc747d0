package segment_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/idgen/idgen/runtime/segment"
)

// stub is a Store that reserves nothing, for tests that never reach it.
type stub struct{}

func (stub) Reserve(context.Context, string, int64) (segment.Range, error) {
	return segment.Range{}, errors.New("stub: no store")
}

// newT is New for a test, failing it on error.
func newT(t testing.TB, s segment.Store, tag string, opts segment.Options) *segment.Allocator {
	t.Helper()
	a, err := segment.New(s, tag, opts)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestNewInvalid(t *testing.T) {
	s := stub{}
	for _, tc := range []struct {
		name string
		tag  string
		o    segment.Options
	}{
		{"no tag", "", segment.Options{}},
		{"step below min", "x", segment.Options{Step: 5, MinStep: 10}},
		{"step above max", "x", segment.Options{Step: 50, MaxStep: 10}},
		{"negative step", "x", segment.Options{Step: -1}},
		{"threshold 1", "x", segment.Options{Threshold: 1}},
		{"negative threshold", "x", segment.Options{Threshold: -0.1}},
		{"negative target", "x", segment.Options{Target: -time.Second}},
	} {
		if a, err := segment.New(s, tc.tag, tc.o); a != nil || !errors.Is(err, segment.ErrInvalidOptions) {
			t.Errorf("%s: New = %v, %v; want ErrInvalidOptions", tc.name, a, err)
		}
	}
	if a, err := segment.New(nil, "x", segment.Options{}); a != nil || !errors.Is(err, segment.ErrInvalidOptions) {
		t.Errorf("no store: New = %v, %v; want ErrInvalidOptions", a, err)
	}
	// Defaults fit the bounds given.
	for _, tc := range []struct {
		o                   segment.Options
		step, minS, maxStep int64
	}{
		{segment.Options{}, segment.DefaultStep, segment.DefaultStep, segment.DefaultMaxStep},
		{segment.Options{MaxStep: 100}, 100, 100, 100},
		{segment.Options{MinStep: 5000}, 5000, 5000, segment.DefaultMaxStep},
		{segment.Options{Step: 2_000_000}, 2_000_000, 2_000_000, 2_000_000},
	} {
		o := segment.Resolved(newT(t, s, "x", tc.o))
		if o.Step != tc.step || o.MinStep != tc.minS || o.MaxStep != tc.maxStep {
			t.Errorf("newT(t, %+v): step %d in [%d, %d], want %d in [%d, %d]", tc.o, o.Step, o.MinStep, o.MaxStep, tc.step, tc.minS, tc.maxStep)
		}
	}
}
