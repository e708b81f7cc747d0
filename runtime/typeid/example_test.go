package typeid_test

import (
	"errors"
	"fmt"

	"github.com/idgen/idgen/runtime/typeid"
)

func Example() {
	// The bytes of a UUIDv7, as uuid.UUID or any [16]byte holds them.
	u := [16]byte{0x01, 0x89, 0x0a, 0x5d, 0xac, 0x96, 0x77, 0x4b, 0xbc, 0xce, 0xb3, 0x02, 0x09, 0x9a, 0x80, 0x57}

	s := typeid.Format("user", u)
	fmt.Println(s)

	back, err := typeid.Parse("user", s)
	fmt.Println(back == u, err)

	_, err = typeid.Parse("order", s)
	fmt.Println(err)
	fmt.Println(errors.Is(err, typeid.ErrInvalid))
	// Output:
	// user_01h455vb4pex5vsknk084sn02q
	// true <nil>
	// typeid: invalid ID "user_01h455vb4pex5vsknk084sn02q": prefix "user", want "order"
	// true
}

func ExampleSplit() {
	// A prefix may contain '_': the TypeID splits on its last one.
	prefix, u, err := typeid.Split("pre_fix_01h455vb4pex5vsknk084sn02q")
	fmt.Printf("%s %x %v\n", prefix, u, err)
	// Output:
	// pre_fix 01890a5dac96774bbcceb302099a8057 <nil>
}

func ExampleParse_errors() {
	for _, s := range []string{
		"USER_01h455vb4pex5vsknk084sn02q",
		"user01h455vb4pex5vsknk084sn02q",
		"user_01h455vb4pex5vsknk084sn02",
		"user_01H455VB4PEX5VSKNK084SN02Q",
		"user_81h455vb4pex5vsknk084sn02q",
	} {
		_, err := typeid.Parse("user", s)
		var pe *typeid.ParseError
		if errors.As(err, &pe) {
			fmt.Println(pe.Reason)
		}
	}
	// Output:
	// invalid prefix "USER": has uppercase 'U' at 0
	// no prefix, want "user"
	// suffix is 25 bytes long, want 26
	// suffix has uppercase 'H' at 7
	// suffix starts with '8': more than 128 bits
}

func ExampleValidPrefix() {
	for _, p := range []string{"user", "pre_fix", "", "User", "_user", "user_"} {
		fmt.Printf("%q: %v\n", p, typeid.ValidPrefix(p))
	}
	// Output:
	// "user": <nil>
	// "pre_fix": <nil>
	// "": <nil>
	// "User": typeid: invalid prefix "User": has uppercase 'U' at 0
	// "_user": typeid: invalid prefix "_user": starts with '_'
	// "user_": typeid: invalid prefix "user_": ends with '_'
}

func ExampleAppend() {
	u := [16]byte{0x01, 0x89, 0x0a, 0x5d, 0xac, 0x96, 0x77, 0x4b, 0xbc, 0xce, 0xb3, 0x02, 0x09, 0x9a, 0x80, 0x57}
	buf := make([]byte, 0, 64) // reused: Append does not allocate
	buf = append(buf, `{"id":"`...)
	buf = typeid.Append(buf, "order", u)
	buf = append(buf, `"}`...)
	fmt.Println(string(buf))
	// Output:
	// {"id":"order_01h455vb4pex5vsknk084sn02q"}
}
