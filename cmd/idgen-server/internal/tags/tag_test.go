package tags_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/idgen/idgen/cmd/idgen-server/internal/config"
	"github.com/idgen/idgen/cmd/idgen-server/internal/tags"
	v1 "github.com/idgen/idgen/idgenclient/idgenv1"
)

// TestWrongKind: Range on a tag that is not a segment tag is a *WrongKindError naming
// the tag and its kind, for errors.As.
func TestWrongKind(t *testing.T) {
	tg := tags.New(tags.Spec{Name: "u", Kind: tags.KindOf(config.KindUUID7)})
	_, err := tg.Range(context.Background(), 10, false)
	var wk *tags.WrongKindError
	if !errors.As(err, &wk) || wk.Tag != "u" || wk.Kind != "uuid7" {
		t.Fatalf("Range on a uuid7 tag: %v, want a *WrongKindError of tag u, kind uuid7", err)
	}
}

// TestTableWith: With leaves the table it was called on as it was.
func TestTableWith(t *testing.T) {
	a := tags.New(tags.Spec{Name: "a", Kind: v1.Kind_KIND_UUID7})
	b := tags.New(tags.Spec{Name: "b", Kind: v1.Kind_KIND_TYPEID, Prefix: "usr"})
	one := (&tags.Table{}).With(a)
	two := one.With(b)
	if _, ok := one.Named("b"); ok || len(one.List()) != 1 {
		t.Fatalf("With changed the table it was called on: %d tags", len(one.List()))
	}
	if got, ok := two.Named("b"); !ok || got != b || len(two.List()) != 2 || two.List()[0] != a {
		t.Fatalf("table of a, b: %v %v", got, two.List())
	}
}

// TestTypeIDRoundTrip: a TypeID tag's ID decodes under that tag, with its time.
func TestTypeIDRoundTrip(t *testing.T) {
	tg := tags.New(tags.Spec{Name: "user", Kind: v1.Kind_KIND_TYPEID, Prefix: "user"})
	_, text, err := tg.Next(context.Background())
	if err != nil || !strings.HasPrefix(text, "user_") {
		t.Fatalf("Next: %q, %v", text, err)
	}
	r, err := tg.Decode(text, time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(r.Time.AsTime()); d < -time.Minute || d > time.Hour {
		t.Errorf("decoded time %v, want about now", r.Time.AsTime())
	}
	if tags.KindName(tg.Kind()) != "typeid" || tg.Issued() != 1 {
		t.Errorf("kind %q, issued %d", tags.KindName(tg.Kind()), tg.Issued())
	}
}
