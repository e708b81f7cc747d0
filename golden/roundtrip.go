package golden

import (
	"bytes"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"testing"

	"github.com/idgen/idgen"
	"github.com/idgen/idgen/runtime/codec"
)

// ID is what the value of every generated type has: its writers and what it says of
// itself.
type ID interface {
	comparable
	String() string
	AppendText([]byte) ([]byte, error)
	MarshalText() ([]byte, error)
	MarshalJSON() ([]byte, error)
	Value() (driver.Value, error)
	MarshalGQL(io.Writer)
	Prefix() string
	Kind() idgen.Kind
	IsZero() bool
}

// Reader is what the pointer of every generated type has: its readers.
type Reader[T any] interface {
	*T
	UnmarshalText([]byte) error
	UnmarshalJSON([]byte) error
	UnmarshalParam(string) error
	Bind(string) error
	UnmarshalGQL(any) error
	Scan(any) error
}

// RoundTrip checks one value of a generated type: either every writer (AppendText,
// MarshalText, MarshalJSON, Value) refuses it with an error matching codec.ErrInvalid,
// MarshalGQL writes null and no reader accepts its String; or every reader (UnmarshalText,
// UnmarshalParam, Bind, UnmarshalGQL, UnmarshalJSON, encoding/json, Scan, Parse, and
// idgen.Resolve for a prefixed type) reads what the writers wrote back as the same value.
// It reports whether the writers accepted v.
func RoundTrip[T ID, P Reader[T]](t testing.TB, v T, parse func(string) (T, error)) bool {
	t.Helper()
	s := v.String() // never panics
	at, aerr := v.AppendText([]byte("x"))
	mt, merr := v.MarshalText()
	mj, jerr := v.MarshalJSON()
	dv, verr := v.Value()
	var gql bytes.Buffer
	v.MarshalGQL(&gql)
	errs := []error{aerr, merr, jerr, verr}
	if aerr != nil || merr != nil || jerr != nil || verr != nil {
		for i, err := range errs {
			if !errors.Is(err, codec.ErrInvalid) {
				t.Fatalf("%#v: writer %d gives %v, others %v: the writers disagree", v, i, err, errs)
			}
		}
		if gql.String() != "null" {
			t.Fatalf("%#v: MarshalGQL wrote %s, want null", v, gql.String())
		}
		if string(at) != "x" {
			t.Fatalf("%#v: AppendText changed its buffer on error: %q", v, at)
		}
		// String's form of an invalid value is no ID either.
		var r T
		if err := P(&r).UnmarshalText([]byte(s)); err == nil {
			t.Fatalf("%#v: its String %q reads back as %#v", v, s, r)
		}
		if _, err := parse(s); err == nil {
			t.Fatalf("%#v: its String %q parses", v, s)
		}
		return false
	}
	if string(at) != "x"+string(mt) || s != string(mt) {
		t.Fatalf("%#v: AppendText %q, MarshalText %q, String %q", v, at, mt, s)
	}
	if !json.Valid(mj) || !json.Valid(gql.Bytes()) || !bytes.Equal(mj, gql.Bytes()) {
		t.Fatalf("%#v: MarshalJSON %s, MarshalGQL %s", v, mj, gql.Bytes())
	}
	check := func(reader string, err error, got T) {
		t.Helper()
		if err != nil || got != v {
			t.Fatalf("%#v: %s of what the writers wrote = %#v, %v", v, reader, got, err)
		}
	}
	var r T
	check("UnmarshalText", P(&r).UnmarshalText(mt), r)
	r = *new(T)
	check("UnmarshalParam", P(&r).UnmarshalParam(string(mt)), r)
	r = *new(T)
	check("Bind", P(&r).Bind(string(mt)), r)
	r = *new(T)
	check("UnmarshalGQL(string)", P(&r).UnmarshalGQL(string(mt)), r)
	r = *new(T)
	check("UnmarshalJSON", P(&r).UnmarshalJSON(mj), r)
	r = *new(T)
	check("json.Unmarshal", json.Unmarshal(mj, &r), r)
	// What MarshalGQL wrote, as gqlgen passes it back when a client sends it as a variable.
	var in any
	d := json.NewDecoder(bytes.NewReader(gql.Bytes()))
	d.UseNumber()
	if err := d.Decode(&in); err != nil {
		t.Fatal(err)
	}
	r = *new(T)
	check("UnmarshalGQL(variable)", P(&r).UnmarshalGQL(in), r)
	r = *new(T)
	check("Scan(Value)", P(&r).Scan(dv), r)
	if str, ok := dv.(string); ok {
		r = *new(T)
		check("Scan([]byte(Value))", P(&r).Scan([]byte(str)), r)
	}
	if len(mt) == 0 {
		// Only the zero business number writes no text: ParseX refuses "", which asks
		// for an ID.
		if _, err := parse(""); err == nil || !v.IsZero() || v.Kind() != idgen.KindNumber || dv != nil {
			t.Fatalf("%#v writes empty text (Value %#v); Parse(\"\") = %v", v, dv, err)
		}
	} else {
		p, err := parse(string(mt))
		check("Parse", err, p)
	}
	typ, ok := idgen.TypeOf(reflect.TypeOf(v))
	if !ok || typ.Kind != v.Kind() || typ.Prefix != v.Prefix() {
		t.Fatalf("%T is not registered as itself: %+v, %v", v, typ, ok)
	}
	if v.Prefix() != "" && len(mt) > 0 {
		typ, got, err := idgen.Resolve(string(mt))
		if err != nil || typ.GoType != reflect.TypeOf(v) || got != any(v) {
			t.Fatalf("Resolve(%q) = %v, %#v, %v", mt, typ.Name, got, err)
		}
	}
	return true
}

// ReadText checks what the readers make of text s: UnmarshalText, UnmarshalParam, Bind
// and UnmarshalGQL agree (the same value, or all refuse with an error matching
// codec.ErrInvalid); Scan reads what they read, to the same value; and a value read
// round-trips through RoundTrip. Empty text is the zero value, which Parse refuses.
func ReadText[T ID, P Reader[T]](t testing.TB, s string, parse func(string) (T, error)) {
	t.Helper()
	var a, b, c, d, e T
	errs := []error{P(&a).UnmarshalText([]byte(s)), P(&b).UnmarshalParam(s), P(&c).Bind(s), P(&d).UnmarshalGQL(s)}
	for i, err := range errs {
		if (err == nil) != (errs[0] == nil) || err != nil && !errors.Is(err, codec.ErrInvalid) {
			t.Fatalf("%q: reader %d gives %v, UnmarshalText %v", s, i, err, errs[0])
		}
	}
	if errs[0] != nil {
		if _, err := parse(s); err == nil {
			t.Fatalf("%q: Parse accepts what UnmarshalText refuses", s)
		}
		return
	}
	if a != b || a != c || a != d {
		t.Fatalf("%q: the readers disagree: %#v %#v %#v %#v", s, a, b, c, d)
	}
	if err := P(&e).Scan(s); err != nil || e != a {
		t.Fatalf("%q: Scan = %#v, %v; UnmarshalText %#v", s, e, err, a)
	}
	var zero T
	if s == "" {
		if a != zero {
			t.Fatalf("empty text read as %#v, want the zero value", a)
		}
		if _, err := parse(""); !errors.Is(err, codec.ErrInvalid) {
			t.Fatalf("Parse(\"\") = %v, want an error matching codec.ErrInvalid", err)
		}
	} else if p, err := parse(s); err != nil || p != a {
		t.Fatalf("%q: Parse = %#v, %v; UnmarshalText %#v", s, p, err, a)
	}
	if !RoundTrip[T, P](t, a, parse) {
		t.Fatalf("%q was read as %#v, which the writers refuse", s, a)
	}
}

// EmptyIsZero checks the one rule for empty text: every reader (UnmarshalText,
// UnmarshalParam, Bind, UnmarshalGQL, UnmarshalJSON of "", Scan of "" and of no bytes)
// makes the zero value of it, over a value that was set; UnmarshalGQL(nil) and Scan(nil)
// do too; Parse("") is an error matching codec.ErrInvalid.
func EmptyIsZero[T ID, P Reader[T]](t testing.TB, set T, parse func(string) (T, error)) {
	t.Helper()
	var zero T
	for _, tc := range []struct {
		reader string
		read   func(P) error
	}{
		{"UnmarshalText", func(p P) error { return p.UnmarshalText(nil) }},
		{"UnmarshalParam", func(p P) error { return p.UnmarshalParam("") }},
		{"Bind", func(p P) error { return p.Bind("") }},
		{"UnmarshalGQL", func(p P) error { return p.UnmarshalGQL("") }},
		{"UnmarshalGQL(nil)", func(p P) error { return p.UnmarshalGQL(nil) }},
		{"UnmarshalJSON", func(p P) error { return p.UnmarshalJSON([]byte(`""`)) }},
		{"json.Unmarshal", func(p P) error { return json.Unmarshal([]byte(`""`), p) }},
		{"Scan", func(p P) error { return p.Scan("") }},
		{"Scan([]byte)", func(p P) error { return p.Scan([]byte{}) }},
		{"Scan(nil)", func(p P) error { return p.Scan(nil) }},
	} {
		v := set
		if err := tc.read(P(&v)); err != nil || v != zero {
			t.Errorf("%s of empty text = %#v, %v; want the zero value", tc.reader, v, err)
		}
	}
	if _, err := parse(""); !errors.Is(err, codec.ErrInvalid) {
		t.Errorf("Parse(\"\") = %v, want an error matching codec.ErrInvalid", err)
	}
}

// TypeOf returns the reflect.Type of T.
func TypeOf[T any]() reflect.Type { return reflect.TypeOf((*T)(nil)).Elem() }
