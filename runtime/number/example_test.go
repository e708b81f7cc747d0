package number_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/idgen/idgen/runtime/number"
	"github.com/idgen/idgen/runtime/snowflake"
)

// An order number for ID 167492386455461895 under the classic layout, written in China
// Standard Time. Checked by hand: the ID is tick 39933296789 (ms after 2025-01-01T00:00Z),
// worker 42, sequence 7, since 39933296789<<22 | 42<<12 | 7 = 167492386455461895. The tick
// is 462 days, 4:34:56.789 after the epoch, 2026-04-08T04:34:56.789Z, which is 12:34:56 in
// Shanghai (UTC+8): time text 20260408123456, sub-tick 789. The unique part is
// (789*1024 + 42)*4096 + 7 = 3309477895, ten digits as 1000*1024*4096-1 = 4194303999
// has ten. With Check the Luhn digit over 202604081234563309477895 is 3.
func Example() {
	shanghai, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		panic(err)
	}
	orders := number.MustCompile(number.Spec{
		Prefix: "ORD",
		Zone:   shanghai,
		Layout: snowflake.Classic(),
	})
	no, err := orders.Format(167492386455461895)
	if err != nil {
		panic(err)
	}
	fmt.Println(no, orders.Width())

	id, err := orders.Parse(no)
	fmt.Println(id, err)

	checked := number.MustCompile(number.Spec{Prefix: "ORD", Zone: shanghai, Layout: snowflake.Classic(), Check: true})
	no, _ = checked.Format(id)
	fmt.Println(no, checked.Width())
	// Output:
	// ORD202604081234563309477895 27
	// 167492386455461895 <nil>
	// ORD2026040812345633094778953 28
}

func ExampleCompile() {
	newYork, err := time.LoadLocation("America/New_York")
	if err != nil {
		panic(err)
	}
	_, err = number.Compile(number.Spec{Prefix: "ORD", Zone: newYork, Layout: snowflake.Classic()})
	var se *number.SpecError
	if errors.As(err, &se) {
		fmt.Println(se.Field, errors.Is(err, number.ErrInvalidSpec))
	}

	_, err = number.Compile(number.Spec{Time: "2006-01-02 15:04:05", Layout: snowflake.Classic()})
	fmt.Println(err)
	// Output:
	// Zone true
	// number: invalid spec: Time "2006-01-02 15:04:05": separator "-" at byte 4: want the month "01" next; fields run year, month, day, hour, minute, second with nothing between
}

// A transaction number under the sonyflake layout, to the minute. The unique part counts
// 10 ms ticks within the minute, then the 16-bit machine, then the 8-bit sequence: its
// largest value is 6000*65536*256 - 1 = 100663295999, twelve digits. At 04:34:56.78 the
// tick is 5678 into the minute: (5678*65536 + 7)*256 + 3 = 95261034243, padded to
// 095261034243; the Luhn digit over 202604080434095261034243 is 9. Mistyping the day 08
// as 09 still gives a valid time, which the check digit catches.
func ExampleFormat_Parse() {
	layout := snowflake.Sonyflake()
	txns := number.MustCompile(number.Spec{Prefix: "TXN", Time: "200601021504", Layout: layout, Check: true})
	at := time.Date(2026, 4, 8, 4, 34, 56, 780e6, time.UTC)
	id, _ := layout.Compose(snowflake.Parts{Tick: layout.Tick(at), Worker: 7, Seq: 3})
	no, _ := txns.Format(id)
	fmt.Println(no)

	back, err := txns.Parse(no)
	parts, _ := layout.Decode(back)
	t, _ := txns.Time(back)
	fmt.Println(back == id, err, t.Format(time.RFC3339Nano), parts.Worker, parts.Seq)

	typo := no[:10] + "9" + no[11:] // one digit of the time mistyped
	_, err = txns.Parse(typo)
	var pe *number.ParseError
	if errors.As(err, &pe) {
		fmt.Println(pe.Reason, errors.Is(err, number.ErrInvalid))
	}
	fmt.Println(err)
	// Output:
	// TXN2026040804340952610342439
	// true <nil> 2026-04-08T04:34:56.78Z 7 3
	// check digit true
	// number: parse "TXN2026040904340952610342439": bad check digit
}

// Append writes into a buffer the caller reuses, without allocating. In UTC the example
// ID of the package example reads 04:34:56; the next two IDs are its successor in
// sequence, then tick+1 with worker 42 and sequence 0: (790*1024 + 42)*4096 = 3313672192.
func ExampleFormat_Append() {
	orders := number.MustCompile(number.Spec{Prefix: "ORD", Layout: snowflake.Classic()})
	buf := make([]byte, 0, orders.Width())
	for _, id := range []snowflake.ID{167492386455461895, 167492386455461896, 167492386459656192} {
		buf, _ = orders.Append(buf[:0], id)
		fmt.Printf("%s\n", buf)
	}
	// Output:
	// ORD202604080434563309477895
	// ORD202604080434563309477896
	// ORD202604080434563313672192
}
