package codec

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// EmptyText reports whether src, a value read from SQL, is empty text: "" or no bytes.
// Every generated Scan reads it as the zero ID, as UnmarshalText reads empty text.
func EmptyText(src any) bool {
	switch x := src.(type) {
	case string:
		return x == ""
	case []byte:
		return x != nil && len(x) == 0
	}
	return false
}

// GQLString returns the text of a GraphQL input value as gqlgen passes it to UnmarshalGQL:
// a string. null is reported as null true. Anything else is a *ParseError naming what it
// got.
func GQLString(typ string, v any) (s string, null bool, err error) {
	switch x := v.(type) {
	case nil:
		return "", true, nil
	case string:
		return x, false, nil
	}
	return "", false, gqlError(typ, v, "want a string")
}

// GQLInt64 reads a snowflake ID from a GraphQL input value as gqlgen passes it to
// UnmarshalGQL: a string, which parseText reads (empty text is 0, as every generated
// reader reads it), or, when numbers is true (a decimal ID), an integer: a json.Number
// from variables, or an int64 or int from a literal in the query; in canonical decimal
// form and not negative. null is reported as null true.
func GQLInt64(typ string, in any, numbers bool, parseText func(string) (int64, error)) (v int64, null bool, err error) {
	switch x := in.(type) {
	case nil:
		return 0, true, nil
	case string:
		if x == "" {
			return 0, false, nil
		}
		v, err = parseText(x)
		return v, false, err
	}
	if !numbers {
		return 0, false, gqlError(typ, in, "want a string (a prefixed ID is text)")
	}
	switch x := in.(type) {
	case json.Number:
		v, err = ParseInt64(typ, string(x))
		return v, false, err
	case int64:
		v = x
	case int:
		v = int64(x)
	case int32:
		v = int64(x)
	default:
		return 0, false, gqlError(typ, in, "want a string or an integer")
	}
	if v < 0 {
		return 0, false, Errorf(typ, strconv.FormatInt(v, 10), "negative")
	}
	return v, false, nil
}

func gqlError(typ string, v any, want string) *ParseError {
	return Errorf(typ, fmt.Sprint(v), "a GraphQL %T: %s", v, want)
}
