package idgen_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/idgen/idgen"
	"github.com/idgen/idgen/runtime/snowflake"
	"github.com/idgen/idgen/runtime/snowflake/snowflaketest"
)

// A process sets its source once at start; generated constructors (NewUserID()) and the
// ORM plugins then take their IDs from it.
func ExampleSetDefault() {
	clock := snowflaketest.NewClock(time.Date(2026, 4, 8, 4, 34, 56, 0, time.UTC))
	gen, err := snowflake.New(snowflake.Classic(), 7, snowflake.Options{Clock: clock})
	if err != nil {
		panic(err)
	}
	idgen.SetDefault(gen)
	defer idgen.SetDefault(nil)

	id, err := idgen.Next(context.Background(), nil) // nil: the default source
	if err != nil {
		panic(err)
	}
	parts, _ := snowflake.Classic().Decode(snowflake.ID(id))
	fmt.Println(id, "worker", parts.Worker)

	idgen.SetDefault(nil)
	_, err = idgen.Next(context.Background(), nil)
	fmt.Println(errors.Is(err, idgen.ErrNoSource))
	// Output:
	// 167492383146012672 worker 7
	// true
}

// Business numbers show when their ID was made, so they refuse a source of counters, such
// as a runtime/segment Allocator; a snowflake generator is fine.
func ExampleNextTimed() {
	gen, err := snowflake.New(snowflake.Classic(), 1, snowflake.Options{})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	_, err = idgen.NextTimed(ctx, gen, snowflake.Classic())
	fmt.Println(err)
	_, err = idgen.NextTimed(ctx, &counter{}, snowflake.Classic())
	fmt.Println(errors.Is(err, idgen.ErrTimeless))
	// Output:
	// <nil>
	// true
}
