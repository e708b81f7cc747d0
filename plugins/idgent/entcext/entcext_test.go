package entcext

import (
	"strings"
	"testing"

	"entgo.io/ent/entc/gen"
	"entgo.io/ent/entc/load"
	"entgo.io/ent/schema/field"

	"github.com/idgen/idgen/plugins/idgent"
)

func typeWith(t *testing.T, a any, fields ...*load.Field) *gen.Type {
	t.Helper()
	typ, err := gen.NewType(&gen.Config{Package: "example.com/ent"}, &load.Schema{
		Name:        "Order",
		Fields:      fields,
		Annotations: map[string]any{idgent.AnnotationName: a},
	})
	if err != nil {
		t.Fatal(err)
	}
	return typ
}

func TestResolve(t *testing.T) {
	str := func(name string, uniq bool) *load.Field {
		return &load.Field{Name: name, Info: &field.TypeInfo{Type: field.TypeString}, Unique: uniq}
	}
	for _, tc := range []struct {
		a      any
		fields []*load.Field
		want   string
	}{
		{map[string]any{"Key": []any{}}, nil, "Idempotent needs a Key"},
		{map[string]any{"Key": []any{"nope"}}, []*load.Field{str("request_id", true)}, `key field "nope" does not exist`},
		{map[string]any{"Key": []any{"request_id"}, "Check": []any{"cents"}}, []*load.Field{str("request_id", true)}, `checked field "cents" does not exist`},
		{map[string]any{"Key": []any{"request_id"}}, []*load.Field{str("request_id", false)}, `key (request_id) is not unique: make the field Unique() or add index.Fields("request_id").Unique()`},
		{"garbage", nil, "reading its Idempotent annotation"},
	} {
		err := resolve(typeWith(t, tc.a, tc.fields...))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "entcext: schema Order: ") {
			t.Errorf("%v: %v, want %q", tc.a, err, tc.want)
		}
	}
	typ := typeWith(t, map[string]any{"Key": []any{"request_id"}}, str("request_id", true))
	if err := resolve(typ); err != nil {
		t.Fatal(err)
	}
	r := typ.Annotations[idgent.AnnotationName].(*resolved)
	if len(r.Keys) != 1 || r.Keys[0].Name != "request_id" || r.Indexes[0] != "request_id" {
		t.Errorf("resolved %+v", r)
	}
	if err := resolve(typ); err != nil {
		t.Errorf("resolving twice: %v", err)
	}
}

func TestTimeDigits(t *testing.T) {
	for _, tc := range []struct {
		schemaType string
		def, want  int
	}{
		{"", 0, 0}, // ent's default on MySQL: timestamp
		{"", 6, 6}, // on PostgreSQL: timestamp with time zone
		{"datetime", 0, 0},
		{"DATETIME(6)", 0, 6},
		{"timestamp(3)", 0, 3},
		{"timestamp", 6, 6},
		{"timestamptz(3)", 6, 3},
		{"timestamp(0) with time zone", 6, 0},
		{"time", 6, 6},
		{"date", 0, -1},
		{"varchar(32)", 0, -1},
		{"datetime(x)", 0, 0},
	} {
		if got := timeDigits(tc.schemaType, tc.def); got != tc.want {
			t.Errorf("timeDigits(%q, %d) = %d, want %d", tc.schemaType, tc.def, got, tc.want)
		}
	}
}
