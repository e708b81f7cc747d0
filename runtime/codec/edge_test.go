package codec

import (
	"encoding/json"
	"errors"
	"testing"
)

func TestEmptyText(t *testing.T) {
	for _, tc := range []struct {
		src  any
		want bool
	}{
		{"", true}, {[]byte{}, true}, {"0", false}, {[]byte("x"), false}, {nil, false}, {[]byte(nil), false}, {int64(0), false},
	} {
		if got := EmptyText(tc.src); got != tc.want {
			t.Errorf("EmptyText(%#v) = %v", tc.src, got)
		}
	}
}

func TestGQLInt64(t *testing.T) {
	parse := func(s string) (int64, error) { return ParseInt64("ID", s) }
	for _, tc := range []struct {
		in      any
		numbers bool
		want    int64
		null    bool
		ok      bool
	}{
		{"42", true, 42, false, true},
		{"", true, 0, false, true},
		{nil, true, 0, true, true},
		{json.Number("42"), true, 42, false, true},
		{int64(42), true, 42, false, true},
		{42, true, 42, false, true},
		{int32(42), true, 42, false, true},
		{json.Number("042"), true, 0, false, false},
		{json.Number("4.2"), true, 0, false, false},
		{json.Number("-1"), true, 0, false, false},
		{int64(-1), true, 0, false, false},
		{-1, true, 0, false, false},
		{42.0, true, 0, false, false},
		{true, true, 0, false, false},
		{"-1", true, 0, false, false},
		{int64(42), false, 0, false, false},
		{json.Number("42"), false, 0, false, false},
		{"42", false, 42, false, true},
	} {
		v, null, err := GQLInt64("ID", tc.in, tc.numbers, parse)
		if tc.ok != (err == nil) || v != tc.want || null != tc.null {
			t.Errorf("GQLInt64(%#v, %v) = %d, %v, %v", tc.in, tc.numbers, v, null, err)
		}
		if err != nil && !errors.Is(err, ErrInvalid) {
			t.Errorf("GQLInt64(%#v): %v does not match ErrInvalid", tc.in, err)
		}
	}
}

func TestGQLString(t *testing.T) {
	if s, null, err := GQLString("ID", "x"); s != "x" || null || err != nil {
		t.Errorf("string: %q %v %v", s, null, err)
	}
	if _, null, err := GQLString("ID", nil); !null || err != nil {
		t.Errorf("nil: %v %v", null, err)
	}
	_, _, err := GQLString("ID", int64(7))
	if !errors.Is(err, ErrInvalid) || err.Error() != `codec: parse ID "7": a GraphQL int64: want a string` {
		t.Errorf("int64: %v", err)
	}
}

func TestValueError(t *testing.T) {
	err := error(InvalidInt64("UserID", -1))
	if !errors.Is(err, ErrInvalid) || err.Error() != "codec: write UserID -1: negative" {
		t.Errorf("InvalidInt64: %v", err)
	}
	cause := Errorf("OrderNo", "ORD-x", "bad length")
	err = InvalidString("OrderNo", "ORD-x", cause)
	if !errors.Is(err, ErrInvalid) || !errors.Is(err, cause) || err.Error() != `codec: write OrderNo "ORD-x": bad length` {
		t.Errorf("InvalidString: %v", err)
	}
}
