package codec_test

import (
	"errors"
	"fmt"

	"github.com/idgen/idgen/runtime/codec"
)

// One ID has one decimal text: leading zeros are refused, and the error matches
// codec.ErrInvalid.
func ExampleParseInt64() {
	v, err := codec.ParseInt64("UserID", "253975777475850240")
	fmt.Println(v, err)
	_, err = codec.ParseInt64("UserID", "0253975777475850240")
	fmt.Println(errors.Is(err, codec.ErrInvalid))
	fmt.Println(err)
	// Output:
	// 253975777475850240 <nil>
	// true
	// codec: parse UserID "0253975777475850240": leading zero: want 253975777475850240
}

// A prefixed ID is "prefix_" and 13 base32 characters that sort like the numbers.
func ExampleAppendPrefixed() {
	s := string(codec.AppendPrefixed(nil, "usr", 167492383146012672))
	v, err := codec.ParsePrefixed("UserID", "usr", s)
	fmt.Println(s, v, err)
	_, err = codec.ParsePrefixed("UserID", "usr", "ord_04mrddxg00w00")
	fmt.Println(err)
	// Output:
	// usr_04mrddxg00w00 167492383146012672 <nil>
	// codec: parse UserID "ord_04mrddxg00w00": want prefix "usr_"
}

// UnmarshalJSONInt64 takes exactly what encoding/json hands an UnmarshalJSON method: no
// surrounding space, strings without escapes, integers without leading zeros.
func ExampleUnmarshalJSONInt64() {
	parse := func(s string) (int64, error) { return codec.ParseInt64("UserID", s) }
	for _, in := range []string{`"42"`, `42`, `null`, `042`, ` 42`, `"4\u0032"`} {
		v, null, err := codec.UnmarshalJSONInt64("UserID", []byte(in), true, parse)
		fmt.Printf("%-9s %d %v %v\n", in, v, null, err)
	}
	// Output:
	// "42"      42 false <nil>
	// 42        42 false <nil>
	// null      0 true <nil>
	// 042       0 false codec: parse UserID "042": leading zero: want 42
	//  42       0 false codec: parse UserID " 42": not a JSON integer
	// "4\u0032" 0 false codec: parse UserID "\"4\\u0032\"": want a JSON string without escapes
}

// UUIDs are read in either case, as RFC 9562 asks, and written in lowercase.
func ExampleParseUUID() {
	u, err := codec.ParseUUID("SessionID", "0190A6F4-7C3E-7B5A-9C1D-2E3F4A5B6C7D")
	fmt.Println(string(codec.AppendUUID(nil, u)), err)
	fmt.Println(codec.UUIDTime(u).Format("2006-01-02 15:04:05.000"))
	// Output:
	// 0190a6f4-7c3e-7b5a-9c1d-2e3f4a5b6c7d <nil>
	// 2024-07-12 12:39:18.846
}
