package snowflake_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/idgen/idgen/runtime/snowflake"
	"github.com/idgen/idgen/runtime/snowflake/snowflaketest"
)

func Example() {
	layout := snowflake.Classic()
	gen, err := snowflake.New(layout, 42, snowflake.Options{})
	if err != nil {
		panic(err)
	}
	id, err := gen.Next()
	if err != nil {
		panic(err)
	}
	parts, _ := layout.Decode(id)
	fmt.Println("worker", parts.Worker)
	made, _ := layout.Time(id)
	fmt.Println("made within the last second:", time.Since(made) < time.Second)
	// Output:
	// worker 42
	// made within the last second: true
}

func ExampleLayout_Decode() {
	layout := snowflake.Classic()
	parts, err := layout.Decode(1234567890123456789)
	if err != nil {
		panic(err)
	}
	fmt.Printf("tick %d worker %d seq %d\n", parts.Tick, parts.Worker, parts.Seq)
	fmt.Println(layout.TimeOf(parts.Tick).UTC().Format(time.RFC3339Nano))
	// Output:
	// tick 294343922167 worker 664 seq 277
	// 2034-04-30T18:12:02.167Z
}

func ExampleLayout_Compose() {
	layout := snowflake.ClassicDC()
	worker, _ := layout.Worker(3, 17) // datacenter 3, machine 17
	id, _ := layout.Compose(snowflake.Parts{Tick: 1000, Worker: worker, Seq: 5})
	parts, _ := layout.Decode(id)
	fmt.Println(id, parts.Datacenter, parts.Machine, parts.Seq)
	// Output: 4194766853 3 17 5
}

func ExampleLayout_Validate() {
	layout := snowflake.Classic()
	layout.SeqBits = 14
	fmt.Println(layout.Validate())
	fmt.Println(errors.Is(layout.Validate(), snowflake.ErrInvalidLayout))
	// Output:
	// snowflake: invalid layout: TimeBits+WorkerBits+SeqBits 41+10+14 = 65 bits, want 63
	// true
}

func ExampleLayout_Lifetime() {
	for _, l := range []snowflake.Layout{snowflake.Classic(), snowflake.Sonyflake(), snowflake.JSONSafe()} {
		fmt.Printf("%v: until %d, %.0f IDs/s per worker\n", l, l.End().Year(), l.IDsPerSecond())
	}
	// Output:
	// 41/10/12 bits of 1ms from 2025-01-01T00:00:00Z: until 2094, 4096000 IDs/s per worker
	// 39/16/8 bits of 10ms from 2025-01-01T00:00:00Z, time-seq-worker: until 2199, 25600 IDs/s per worker
	// 41/6/6 bits of 1ms from 2025-01-01T00:00:00Z, 53-bit: until 2094, 64000 IDs/s per worker
}

func ExampleGenerator_NextN() {
	gen, _ := snowflake.New(snowflake.Classic(), 1, snowflake.Options{})
	ids, err := gen.NextN(context.Background(), 1000)
	if err != nil {
		panic(err)
	}
	fmt.Println(len(ids), ids[0] < ids[999])
	// Output: 1000 true
}

// A clock found behind the last issued time, here after a restart that inherits the
// previous holder's last time, is refused with an error that says by how much.
func ExampleClockBehindError() {
	clock := snowflaketest.NewClock(time.Date(2026, 4, 8, 12, 0, 0, 0, time.UTC))
	gen, _ := snowflake.New(snowflake.Classic(), 1, snowflake.Options{
		Clock:    clock,
		Rollback: snowflake.RollbackFail,
		After:    clock.Now().Add(5 * time.Second), // the previous holder issued until then
	})
	_, err := gen.Next()
	var behind *snowflake.ClockBehindError
	if errors.As(err, &behind) {
		fmt.Println(behind.Behind, err)
	}
	// Output: 5s snowflake: clock is 5s behind the last issued time (policy fail)
}

func ExampleID_AppendText() {
	buf := make([]byte, 0, 64)
	buf = append(buf, `{"id":"`...)
	buf, _ = snowflake.ID(1234567890123456789).AppendText(buf)
	buf = append(buf, `"}`...)
	fmt.Println(string(buf))
	// Output: {"id":"1234567890123456789"}
}

// Issued counts the IDs a generator handed out, at no cost per ID.
func ExampleGenerator_Issued() {
	g, err := snowflake.New(snowflake.Classic(), 1, snowflake.Options{})
	if err != nil {
		panic(err)
	}
	for range 3 {
		g.Next()
	}
	g.NextN(context.Background(), 100)
	fmt.Println(g.Issued())
	// Output: 103
}
