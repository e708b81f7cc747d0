package uuidv7_test

import (
	"bytes"
	"fmt"
	"time"

	"github.com/idgen/idgen/runtime/codec"
	"github.com/idgen/idgen/runtime/uuidv7"
)

// UUIDs made one after another in a process sort in the order they were made, and carry
// the millisecond they were made in.
func ExampleNew() {
	a, err := uuidv7.New()
	if err != nil {
		panic(err)
	}
	b, _ := uuidv7.New()
	fmt.Println("version", a[6]>>4, "variant", a[8]>>6)
	fmt.Println(bytes.Compare(a[:], b[:]) < 0)
	fmt.Println(time.Since(codec.UUIDTime(a)) < time.Minute)
	// Output:
	// version 7 variant 2
	// true
	// true
}
