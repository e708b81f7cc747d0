package snowflaketest_test

import (
	"fmt"
	"time"

	"github.com/idgen/idgen/runtime/snowflake"
	"github.com/idgen/idgen/runtime/snowflake/snowflaketest"
)

// A manual clock makes a generator deterministic: the same IDs on every run, and a clock
// that goes back is handled by the policy, not by luck.
func ExampleClock() {
	clock := snowflaketest.NewClock(time.Date(2026, 4, 8, 4, 34, 56, 0, time.UTC))
	gen, err := snowflake.New(snowflake.Classic(), 7, snowflake.Options{Clock: clock, Rollback: snowflake.RollbackFail})
	if err != nil {
		panic(err)
	}
	first, _ := gen.Next()
	clock.Advance(time.Millisecond)
	second, _ := gen.Next()
	fmt.Println(first, second)

	clock.Set(time.Date(2026, 4, 8, 4, 34, 55, 0, time.UTC)) // one second back
	_, err = gen.Next()
	fmt.Println(err)
	// Output:
	// 167492383146012672 167492383150206977
	// snowflake: clock is 1.001s behind the last issued time (policy fail)
}
