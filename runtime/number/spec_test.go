package number_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/idgen/idgen/runtime/number"
	"github.com/idgen/idgen/runtime/snowflake"
)

func TestCompileErrors(t *testing.T) {
	classic := snowflake.Classic()
	withUnit := func(u time.Duration, timeBits uint8) snowflake.Layout {
		return snowflake.Layout{Epoch: classic.Epoch, Unit: u, TimeBits: timeBits, WorkerBits: 10, SeqBits: 53 - timeBits}
	}
	withEpoch := func(e time.Time) snowflake.Layout {
		l := snowflake.Classic()
		l.Epoch = e
		return l
	}
	badBits := snowflake.Classic()
	badBits.SeqBits = 14
	wide := snowflake.Layout{Epoch: classic.Epoch, Unit: time.Millisecond, TimeBits: 1, WorkerBits: 30, SeqBits: 32}

	for _, c := range []struct {
		name  string
		spec  number.Spec
		field string
		want  []string // substrings of the message
	}{
		{"dst zone", number.Spec{Zone: zone(t, "America/New_York"), Layout: classic},
			"Zone", []string{`Zone "America/New_York" changes`, "from -05:00 to -04:00", "2025-03-09T03:00:00-04:00", "repeat"}},
		{"dst zone, short changes", number.Spec{Zone: zone(t, "Africa/Casablanca"), Layout: classic},
			"Zone", []string{`"Africa/Casablanca"`, "from +01:00 to +00:00"}},
		{"separators", number.Spec{Time: "2006-01-02 15:04:05", Layout: classic},
			"Time", []string{`separator "-" at byte 4`, `want the month "01" next`}},
		{"space", number.Spec{Time: "20060102 150405", Layout: classic},
			"Time", []string{`separator " " at byte 8`}},
		{"missing hour", number.Spec{Time: "20060102", Layout: classic},
			"Time", []string{"stops at the day", `"2006010215"`, "fixed duration"}},
		{"year only", number.Spec{Time: "2006", Layout: classic},
			"Time", []string{"stops at the year"}},
		{"two-digit year, long lifetime", number.Spec{Time: "060102150405", Layout: snowflake.Sonyflake()},
			"Time", []string{`two-digit year "06"`, "from 2025 to 2199", "one century", `use "2006"`}},
		{"month name", number.Spec{Time: "2006Jan02150405", Layout: classic},
			"Time", []string{`"Jan" (month name) at byte 4`}},
		{"12-hour", number.Spec{Time: "20060102030405", Layout: classic},
			"Time", []string{`"03" (12-hour hour) at byte 8`, `want the hour "15"`}},
		{"unpadded hour", number.Spec{Time: "2006010230405", Layout: classic},
			"Time", []string{`"3" (unpadded 12-hour hour) at byte 8`}},
		{"pm", number.Spec{Time: "2006010215PM", Layout: classic},
			"Time", []string{`"PM" (AM/PM mark) at byte 10`}},
		{"fractional seconds", number.Spec{Time: "20060102150405.000", Layout: classic},
			"Time", []string{`".000" (fractional seconds) at byte 14`, "nothing may follow"}},
		{"zone offset", number.Spec{Time: "20060102150405Z07:00", Layout: classic},
			"Time", []string{`"Z07:00" (UTC offset) at byte 14`}},
		{"out of order", number.Spec{Time: "20060201150405", Layout: classic},
			"Time", []string{`"02" (day) at byte 4`, `want the month "01"`}},
		{"skipped minute", number.Spec{Time: "200601021505", Layout: classic},
			"Time", []string{`"05" (second) at byte 10`, `want the minute "04"`}},
		{"not starting with the year", number.Spec{Time: "01022006150405", Layout: classic},
			"Time", []string{`"01" (month) at byte 0`, "must start with the year"}},
		{"repeated second", number.Spec{Time: "2006010215040505", Layout: classic},
			"Time", []string{`"05" (second) at byte 14`}},
		{"stray letter", number.Spec{Time: "20060102150405X", Layout: classic},
			"Time", []string{`"X" (not a layout field) at byte 14`}},
		{"non-ASCII", number.Spec{Time: "2006年01月02日15", Layout: classic},
			"Time", []string{`"年" (not a layout field) at byte 4`}},
		{"epoch before year 0", number.Spec{Layout: withEpoch(time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC))},
			"Layout.Epoch", []string{"years -1 to 68", "0000 to 9999"}},
		{"prefix character", number.Spec{Prefix: "ORD!", Layout: classic},
			"Prefix", []string{`'!' at byte 3`}},
		{"prefix space", number.Spec{Prefix: "OR D", Layout: classic},
			"Prefix", []string{`' ' at byte 2`}},
		{"prefix non-ASCII", number.Spec{Prefix: "订单", Layout: classic},
			"Prefix", []string{"'订' at byte 0", "ASCII"}},
		{"prefix too long", number.Spec{Prefix: "ABCDEFGHIJKLMNOPQ", Layout: classic},
			"Prefix", []string{"17 bytes", "more than 16"}},
		{"unit not dividing the resolution", number.Spec{Layout: withUnit(7*time.Millisecond, 38)},
			"Layout.Unit", []string{"7ms does not divide", "one second"}},
		{"unit above the resolution", number.Spec{Time: "200601021504", Layout: withUnit(90*time.Second, 26)},
			"Layout.Unit", []string{"1m30s does not divide", "one minute"}},
		{"epoch off the second", number.Spec{Layout: withEpoch(classic.Epoch.Add(500 * time.Millisecond))},
			"Layout.Epoch", []string{"2025-01-01T00:00:00.5Z", "not the start of a second"}},
		{"epoch off the hour in the zone", number.Spec{Time: "2006010215", Zone: zone(t, "Asia/Kolkata"), Layout: classic},
			"Layout.Epoch", []string{"2025-01-01T05:30:00", `"Asia/Kolkata"`, "not the start of an hour"}},
		{"invalid layout", number.Spec{Layout: badBits},
			"Layout", []string{"fails validation", "41+10+14 = 65 bits"}},
		{"zero layout", number.Spec{},
			"Layout", []string{"fails validation"}},
		{"unique part beyond 64 bits", number.Spec{Layout: wide},
			"Layout", []string{"more than 64 bits"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, err := number.Compile(c.spec)
			if f != nil || !errors.Is(err, number.ErrInvalidSpec) {
				t.Fatalf("Compile = %v, %v; want ErrInvalidSpec", f, err)
			}
			var se *number.SpecError
			if !errors.As(err, &se) || se.Field != c.field {
				t.Fatalf("Compile: %v; want a *SpecError on %s", err, c.field)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "number: invalid spec: "+c.field+" ") {
				t.Errorf("message %q does not start with the package and field", msg)
			}
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("message %q does not contain %q", msg, w)
				}
			}
			if strings.HasSuffix(msg, ".") {
				t.Errorf("message %q ends with a period", msg)
			}
			if got := func() (r any) {
				defer func() { r = recover() }()
				number.MustCompile(c.spec)
				return nil
			}(); got == nil {
				t.Errorf("MustCompile did not panic")
			}
		})
	}
}

func TestCompileWrapsLayoutError(t *testing.T) {
	l := snowflake.Classic()
	l.SeqBits = 14
	_, err := number.Compile(number.Spec{Layout: l})
	var le *snowflake.LayoutError
	if !errors.Is(err, snowflake.ErrInvalidLayout) || !errors.As(err, &le) || le.Field != "TimeBits+WorkerBits+SeqBits" {
		t.Errorf("Compile: %v; want it to wrap the *snowflake.LayoutError", err)
	}
}

func TestCompileAccepts(t *testing.T) {
	for _, c := range []struct {
		name string
		spec number.Spec
	}{
		{"defaults", number.Spec{Layout: snowflake.Classic()}},
		{"empty prefix, all fields", number.Spec{Time: "20060102150405", Layout: snowflake.Classic()}},
		{"longest prefix", number.Spec{Prefix: "AB-CD_EF-0123456", Layout: snowflake.Classic()}},
		{"to the hour", number.Spec{Time: "2006010215", Layout: snowflake.Sonyflake()}},
		{"two-digit year within a century", number.Spec{Time: "0601021504", Zone: zone(t, "Asia/Shanghai"), Layout: snowflake.Classic()}},
		{"half-hour zone to the minute", number.Spec{Time: "200601021504", Zone: zone(t, "Asia/Kolkata"), Layout: snowflake.ClassicDC()}},
		{"fixed zone", number.Spec{Zone: time.FixedZone("X", 5*3600+45*60), Layout: snowflake.JSONSafe()}},
		{"unit of 1.5s to the minute", number.Spec{Time: "200601021504", Layout: snowflake.Layout{Epoch: snowflake.Classic().Epoch, Unit: 1500 * time.Millisecond, TimeBits: 32, WorkerBits: 10, SeqBits: 21}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := number.Compile(c.spec); err != nil {
				t.Fatal(err)
			}
		})
	}
}
