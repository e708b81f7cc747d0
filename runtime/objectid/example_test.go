package objectid_test

import (
	"fmt"
	"time"

	"github.com/idgen/idgen/runtime/objectid"
)

func ExampleParse() {
	id, err := objectid.Parse("507F1F77BCF86CD799439011") // either case
	if err != nil {
		panic(err)
	}
	fmt.Println(string(objectid.Append(nil, id))) // lowercase
	fmt.Println(objectid.Time(id))
	_, err = objectid.Parse("507f1f77bcf86cd79943901")
	fmt.Println(err)
	// Output:
	// 507f1f77bcf86cd799439011
	// 2012-10-17 21:13:27 +0000 UTC
	// codec: parse ObjectId "507f1f77bcf86cd79943901": want 24 hex characters, got 23 bytes
}

func ExampleNew() {
	a, b := objectid.New(), objectid.New()
	fmt.Println(a != b, len(objectid.Append(nil, a)))
	fmt.Println(time.Since(objectid.Time(a)) < time.Minute)
	// Output:
	// true 24
	// true
}
