package main

import (
	"errors"
	"fmt"
	"go/token"
	"go/types"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/idgen/idgen/runtime/number"
	"github.com/idgen/idgen/runtime/snowflake"
	"github.com/idgen/idgen/runtime/typeid"
)

// The kinds of ID an annotation can ask for.
const (
	kindSnowflake = "snowflake"
	kindNumber    = "number"
	kindUUID7     = "uuid7"
	kindTypeID    = "typeid"
	kindObjectID  = "objectid"
)

// kinds lists, per kind, the underlying Go type it needs and the options it takes.
var kinds = map[string]struct {
	underlying string
	options    []string
}{
	kindSnowflake: {"int64", []string{"prefix", "json", "layout"}},
	kindNumber:    {"string", []string{"prefix", "time", "zone", "layout", "check"}},
	kindUUID7:     {"[16]byte", nil},
	kindTypeID:    {"[16]byte", []string{"prefix", "sql"}},
	kindObjectID:  {"[12]byte", nil},
}

func kindList() string {
	names := make([]string, 0, len(kinds))
	for k := range kinds {
		names = append(names, k)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// layouts are the snowflake layouts an annotation can name, and the runtime/snowflake
// function each is (layoutFunc): the presets, for IDs continuing those of Leaf, Twitter,
// bwmarrin/snowflake, sonyflake and uid-generator.
var layouts = map[string]func() snowflake.Layout{
	"classic":       snowflake.Classic,
	"classicdc":     snowflake.ClassicDC,
	"sonyflake":     snowflake.Sonyflake,
	"jsonsafe":      snowflake.JSONSafe,
	"leaf":          snowflake.Leaf,
	"twitter":       snowflake.Twitter,
	"bwmarrin":      snowflake.Bwmarrin,
	"sonyflake-v1":  snowflake.SonyflakeV1,
	"sonyflake-v2":  snowflake.SonyflakeV2,
	"uid-generator": snowflake.UIDGenerator,
}

// pkgModel is one package and the ID types annotated in it.
type pkgModel struct {
	name, path, dir string
	types           []*idType
	gorm            bool // write GormDBDataType methods (-gorm)
}

// idType is one annotated type, with its options checked and defaulted.
type idType struct {
	name string
	pos  token.Position
	kind string

	prefix     string // snowflake: text prefix; number: literal prefix; typeid: type prefix
	jsonNumber bool   // snowflake: JSON as a bare number
	layout     string // snowflake, number: layout preset name
	timeFormat string // number: Go time layout
	zone       string // number: zone name
	zoneOffset int    // number: the zone's fixed UTC offset, in seconds
	check      bool   // number: Luhn check digit
	sqlText    bool   // typeid: store the TypeID text, not the UUID
	width      int    // number: the length of every number

	optPos map[string]token.Position // where each option was given
}

var snowflakePrefix = regexp.MustCompile(`^[a-z][a-z0-9]{0,15}$`)

// buildType checks an annotation against the declared type and returns the model.
func buildType(a *annotation, name string, obj types.Object, typeErr string) (*idType, error) {
	k, ok := kinds[a.kind]
	if !ok {
		return nil, errorAt(a.pos, "idgen: unknown kind %q: want one of %s", a.kind, kindList())
	}
	t := &idType{name: name, pos: a.pos, kind: a.kind, layout: "classic", optPos: map[string]token.Position{}}
	if obj.Type().Underlying() == types.Typ[types.Invalid] {
		why := ""
		if typeErr != "" {
			// Most often an import whose module is not in go.mod or go.sum yet: say so.
			why = " (" + typeErr + "; if a module is missing, run go mod tidy)"
		}
		return nil, errorAt(a.pos, "idgen:%s: the type of %s does not resolve: fix the package's type errors first%s", a.kind, name, why)
	}
	if got := underlyingName(obj.Type()); got != k.underlying {
		return nil, errorAt(a.pos, "idgen:%s: type %s has underlying type %s: want %s", a.kind, name, got, k.underlying)
	}
	if a.kind == kindNumber {
		t.timeFormat, t.zone = "20060102150405", "UTC"
	}
	for _, o := range a.options {
		if !slices.Contains(k.options, o.key) {
			want := "it takes no options"
			if len(k.options) > 0 {
				want = "want " + strings.Join(k.options, ", ")
			}
			return nil, errorAt(o.pos, "idgen:%s: unknown option %q: %s", a.kind, o.key, want)
		}
		t.optPos[o.key] = o.pos
		if err := t.set(o); err != nil {
			return nil, err
		}
	}
	if err := t.finish(a.pos); err != nil {
		return nil, err
	}
	return t, nil
}

func (t *idType) set(o option) error {
	bad := func(format string, args ...any) error {
		return errorAt(o.pos, "idgen:%s: option %s=%q: %s", t.kind, o.key, o.value, fmt.Sprintf(format, args...))
	}
	switch o.key {
	case "prefix":
		switch t.kind {
		case kindSnowflake:
			if !snowflakePrefix.MatchString(o.value) {
				return bad("want a lowercase letter, then up to 15 lowercase letters or digits")
			}
		case kindTypeID:
			if err := typeid.ValidPrefix(o.value); err != nil {
				return bad("%v", err)
			}
		}
		t.prefix = o.value
	case "json":
		switch o.value {
		case "string":
		case "number":
			t.jsonNumber = true
		default:
			return bad("want string or number")
		}
	case "layout":
		if _, ok := layouts[o.value]; !ok {
			return bad("want one of classic, classicdc, sonyflake, jsonsafe, leaf, twitter, bwmarrin, sonyflake-v1, sonyflake-v2, uid-generator")
		}
		t.layout = o.value
	case "time":
		t.timeFormat = o.value
	case "zone":
		t.zone = o.value
	case "check":
		switch o.value {
		case "true", "luhn":
			t.check = true
		case "false":
		default:
			return bad("want true or false")
		}
	case "sql":
		switch o.value {
		case "uuid":
		case "text":
			t.sqlText = true
		default:
			return bad("want uuid or text")
		}
	}
	return nil
}

// finish checks what needs all options at once.
func (t *idType) finish(pos token.Position) error {
	if t.kind == kindSnowflake && t.jsonNumber && t.prefix != "" {
		return errorAt(pos, "idgen:snowflake: json=number and prefix=%q do not go together: a prefixed ID is text", t.prefix)
	}
	if t.kind != kindNumber {
		return nil
	}
	if t.zone == "Local" {
		p := pos
		if zp, ok := t.optPos["zone"]; ok {
			p = zp
		}
		return errorAt(p, "idgen:number: zone=Local would pin the UTC offset of the machine that runs go generate, so two builds could give one ID two numbers: want an IANA name with one offset, such as Asia/Shanghai or UTC")
	}
	loc, err := time.LoadLocation(t.zone)
	if err != nil {
		return errorAt(pos, "idgen:number: zone=%q: %v", t.zone, err)
	}
	nf, err := number.Compile(number.Spec{Prefix: t.prefix, Time: t.timeFormat, Zone: loc, Layout: layouts[t.layout](), Check: t.check})
	if err != nil {
		var se *number.SpecError
		if errors.As(err, &se) {
			key := strings.ToLower(se.Field)
			if p, ok := t.optPos[key]; ok {
				pos = p
			}
			return errorAt(pos, "idgen:number: option %s: %s", key, se.Problem)
		}
		return errorAt(pos, "idgen:number: %v", err)
	}
	// The zone keeps one offset over the layout's lifetime (Compile checked): generated
	// code pins it, so numbers never depend on the zone database of the machine that runs it.
	_, t.zoneOffset = layouts[t.layout]().Epoch.In(loc).Zone()
	t.width = nf.Width()
	return nil
}

// underlyingName names a type's underlying type the way the kinds table does.
func underlyingName(t types.Type) string {
	switch u := t.Underlying().(type) {
	case *types.Basic:
		return u.Name()
	case *types.Array:
		if b, ok := u.Elem().Underlying().(*types.Basic); ok && b.Kind() == types.Uint8 {
			return fmt.Sprintf("[%d]byte", u.Len())
		}
	}
	return t.Underlying().String()
}
