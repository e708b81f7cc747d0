package idgen

// The registry lives in package idgen, not a package of its own: generated code already
// imports idgen (GeneratedCodeV1, Generated), so every program with a generated type has
// it linked, and one package name (idgen.Register, idgen.Resolve, idgen.Types) is what
// users, plugins and tools look for.

import (
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
)

// Kind is the kind of a generated ID type, as its //idgen: annotation names it.
type Kind string

// The kinds cmd/idgen-gen writes.
const (
	KindSnowflake Kind = "snowflake" // int64: decimal text, or prefix_ and 13 base32 characters
	KindNumber    Kind = "number"    // string: a business number, prefix, time and digits
	KindUUID7     Kind = "uuid7"     // [16]byte: the 36-character UUID
	KindTypeID    Kind = "typeid"    // [16]byte: prefix_ and 26 base32 characters
	KindObjectID  Kind = "objectid"  // [12]byte: 24 hex characters
)

// Storage is what a type's Value writes to SQL, and so the column type it belongs in.
type Storage string

// The storages of generated types.
const (
	StorageInt8 Storage = "int8" // an int64: BIGINT (PostgreSQL int8)
	StorageText Storage = "text" // a string: text, varchar
	StorageUUID Storage = "uuid" // the 36-character UUID text: PostgreSQL uuid, char(36) elsewhere
)

// Type describes one generated ID type. Generated code fills Zero, Kind, Prefix, Storage
// and Parse and calls Register; Register fills Name and GoType.
type Type struct {
	// Name is the type's name qualified by its package path, as in
	// "example.com/app/models.UserID".
	Name string
	// GoType is the type itself, reflect.TypeOf(Zero).
	GoType reflect.Type
	// Zero is the type's zero value, such as models.UserID(0).
	Zero any
	// Kind is the kind of ID.
	Kind Kind
	// Prefix is what the text of every ID of the type starts with: "usr" for "usr_…" (a
	// prefixed snowflake ID or a TypeID, followed by '_'), "ORD" for a business number
	// "ORD2026…" (followed by its digits). It is empty for decimal snowflake IDs, UUIDv7,
	// ObjectIds, TypeIDs and numbers without a prefix, whose text Resolve cannot tell apart.
	Prefix string
	// Storage is what the type's Value writes.
	Storage Storage
	// Parse is the type's ParseX: the ID in a Zero-typed any, or an error matching
	// codec.ErrInvalid.
	Parse func(string) (any, error)
}

// Resolvable reports whether Resolve can find the type from text alone: whether it has a
// prefix.
func (t Type) Resolvable() bool { return t.Prefix != "" }

// claim is the text every ID of t starts with, and what follows it.
func (t Type) claim() string {
	if t.Kind == KindNumber {
		return t.Prefix
	}
	return t.Prefix + "_"
}

// ErrUnknownPrefix is returned by Resolve for text whose prefix no registered type claims.
var ErrUnknownPrefix = errors.New("idgen: no registered ID type claims the text's prefix")

// ErrSharedPrefix is returned by Resolve for text that two registered types claim, and
// matched by CheckPrefixes' error.
var ErrSharedPrefix = errors.New("idgen: a prefix is claimed by more than one ID type")

var registry struct {
	mu    sync.RWMutex
	types map[reflect.Type]Type
}

// Register records a generated type. The init function of every file cmd/idgen-gen
// writes calls it, once a type; other code need not. A prefix claimed by two types is
// recorded, not refused (an init function cannot fail well): CheckPrefixes reports it,
// and Resolve refuses the text both claim. Registering a type again replaces it.
func Register(t Type) {
	if t.Zero == nil || t.Parse == nil {
		panic("idgen: Register needs the type's zero value and its Parse")
	}
	t.GoType = reflect.TypeOf(t.Zero)
	t.Name = t.GoType.PkgPath() + "." + t.GoType.Name()
	registry.mu.Lock()
	defer registry.mu.Unlock()
	if registry.types == nil {
		registry.types = map[reflect.Type]Type{}
	}
	registry.types[t.GoType] = t
}

// Types returns every registered type, sorted by Name: with and without a prefix. The
// plugins read it to register each type (and its slices) with a driver.
func Types() []Type {
	registry.mu.RLock()
	out := make([]Type, 0, len(registry.types))
	for _, t := range registry.types {
		out = append(out, t)
	}
	registry.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// TypeOf returns the registered type whose Go type is rt.
func TypeOf(rt reflect.Type) (Type, bool) {
	registry.mu.RLock()
	defer registry.mu.RUnlock()
	t, ok := registry.types[rt]
	return t, ok
}

// Resolve tells which registered type a text ID is, from its prefix alone, and parses it
// with that type's Parse: no type's parser is tried on a guess. The text of a prefixed
// snowflake ID or a TypeID is matched on what comes before its last '_' and the length
// after it (13 or 26 characters); a business number on the prefix followed by a digit.
// Types without a prefix (decimal snowflake IDs, UUIDv7, ObjectIds) are never returned:
// their text does not say its type. The error matches ErrUnknownPrefix when no type
// claims the text, ErrSharedPrefix when two do, and codec.ErrInvalid when the type's
// Parse refuses it; v holds the parsed ID, of t's Go type.
func Resolve(s string) (t Type, v any, err error) {
	var found []Type
	registry.mu.RLock()
	for _, c := range registry.types {
		if c.Prefix != "" && c.matches(s) {
			found = append(found, c)
		}
	}
	registry.mu.RUnlock()
	switch len(found) {
	case 0:
		return Type{}, nil, fmt.Errorf("%w: %q", ErrUnknownPrefix, cut(s))
	case 1:
	default:
		names := make([]string, len(found))
		for i, c := range found {
			names[i] = c.Name
		}
		sort.Strings(names)
		return Type{}, nil, fmt.Errorf("%w: %q is claimed by %s", ErrSharedPrefix, cut(s), strings.Join(names, " and "))
	}
	t = found[0]
	v, err = t.Parse(s)
	if err != nil {
		return t, nil, fmt.Errorf("idgen: resolve %q as %s: %w", cut(s), t.Name, err)
	}
	return t, v, nil
}

// matches reports whether s has the shape of t's text up to its prefix: the claim, then
// what the kind puts after it.
func (t Type) matches(s string) bool {
	claim := t.claim()
	if !strings.HasPrefix(s, claim) {
		return false
	}
	rest := s[len(claim):]
	switch t.Kind {
	case KindNumber:
		return rest != "" && rest[0] >= '0' && rest[0] <= '9'
	case KindSnowflake:
		return len(rest) == 13 && !strings.Contains(rest, "_")
	case KindTypeID:
		return len(rest) == 26 && !strings.Contains(rest, "_")
	}
	return false
}

// CheckPrefixes returns an error naming every prefix that two registered types claim, or
// nil. Two packages of one program may each use a prefix that the generator allowed in
// each alone; call it in a test of the program's main package:
//
//	func TestIDPrefixes(t *testing.T) {
//		if err := idgen.CheckPrefixes(); err != nil {
//			t.Fatal(err)
//		}
//	}
//
// A business number's prefix that another number's prefix starts, followed by digits
// ("A" and "A2"), is a shared prefix too: some text would be either's. The error matches
// ErrSharedPrefix.
func CheckPrefixes() error {
	types := Types()
	var clashes []string
	for i, a := range types {
		for _, b := range types[i+1:] {
			if a.Prefix == "" || b.Prefix == "" || !overlap(a, b) {
				continue
			}
			clashes = append(clashes, fmt.Sprintf("%q (%s) and %q (%s)", a.Prefix, a.Name, b.Prefix, b.Name))
		}
	}
	if len(clashes) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrSharedPrefix, strings.Join(clashes, "; "))
}

// overlap reports whether some text could be an ID of both a and b, as far as Resolve
// can tell from prefixes.
func overlap(a, b Type) bool {
	if a.Prefix == b.Prefix {
		return true
	}
	if a.Kind != KindNumber && b.Kind != KindNumber {
		return false
	}
	if a.Kind != b.Kind {
		// A number's text is its prefix and a digit; another kind's is its prefix, '_',
		// and base32 characters, digits among them: number "user_" and TypeID "user",
		// or number "ord" and snowflake "ord1", claim the same texts. A number prefix
		// that extends the other's "prefix_" is refused too, conservatively.
		n, o := a, b
		if o.Kind == KindNumber {
			n, o = o, n
		}
		c := o.Prefix + "_"
		if rest, ok := strings.CutPrefix(c, n.Prefix); ok {
			return rest == "" || rest[0] >= '0' && rest[0] <= '9'
		}
		return strings.HasPrefix(n.Prefix, c)
	}
	if len(a.Prefix) > len(b.Prefix) {
		a, b = b, a
	}
	rest, ok := strings.CutPrefix(b.Prefix, a.Prefix)
	return ok && rest[0] >= '0' && rest[0] <= '9'
}

// cut shortens text for an error message.
func cut(s string) string {
	if len(s) > 64 {
		return s[:64] + "..."
	}
	return s
}
