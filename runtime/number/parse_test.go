package number_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/idgen/idgen/runtime/number"
	"github.com/idgen/idgen/runtime/snowflake"
)

// withCheck appends the Luhn digit that makes digits valid.
func withCheck(digits string) string {
	for d := '0'; d <= '9'; d++ {
		if luhnValid(digits + string(d)) {
			return digits + string(d)
		}
	}
	panic("no check digit")
}

func TestLuhn(t *testing.T) {
	// The worked example of ISO/IEC 7812-1: 7992739871 has check digit 3.
	if got := withCheck("7992739871"); got != "79927398713" {
		t.Fatalf("withCheck = %s", got)
	}
	f := number.MustCompile(number.Spec{Layout: snowflake.Classic(), Check: true})
	no, _ := f.Format(167492386455461895)
	if !luhnValid(no) {
		t.Fatalf("%s fails the Luhn test", no)
	}
	// Every single-digit mistake is caught by the check digit (or earlier).
	for i := range len(no) {
		for d := byte('0'); d <= '9'; d++ {
			if d == no[i] {
				continue
			}
			typo := no[:i] + string(d) + no[i+1:]
			if _, err := f.Parse(typo); err == nil {
				t.Errorf("typo %s of %s parsed", typo, no)
			}
		}
	}
}

func TestParseErrors(t *testing.T) {
	shanghai := zone(t, "Asia/Shanghai")
	classic := snowflake.Classic()
	orders := number.MustCompile(number.Spec{Prefix: "ORD", Zone: shanghai, Layout: classic, Check: true})
	plain := number.MustCompile(number.Spec{Prefix: "ORD", Zone: shanghai, Layout: classic})
	hours := number.MustCompile(number.Spec{Prefix: "H", Time: "2006010215", Layout: classic})
	short := number.MustCompile(number.Spec{Time: "060102150405", Zone: shanghai, Layout: classic})
	const valid = "ORD2026040812345633094778953" // see Example
	const unique = "3309477895"                  // sub-tick 789, worker 42, sequence 7
	ord := func(timeText, unique string) string { return "ORD" + withCheck(timeText+unique) }

	// The last tick, 2^41-1 ms after the epoch, is 2094-09-07 15:47:35.551 UTC: its
	// sub-tick is 551, so sub-tick 552 in the same second is past the end.
	last, _ := classic.Compose(snowflake.Parts{Tick: classic.MaxTick()})
	lastNo, _ := orders.Format(last)
	if want := ord("20940907234735", "2311061504"); lastNo != want { // 551*1024*4096 = 2311061504
		t.Fatalf("last tick: %s, want %s", lastNo, want)
	}

	for _, c := range []struct {
		f      *number.Format
		in     string
		reason string
		detail string // the message after "bad <reason>", if any
	}{
		{orders, "", "length", ": 0 bytes, want 28"},
		{orders, valid + "0", "length", ": 29 bytes, want 28"},
		{orders, valid[:27], "length", ": 27 bytes, want 28"},
		{orders, "ORD", "length", ": 3 bytes, want 28"},
		{orders, "ORX" + valid[3:], "prefix", `: want "ORD"`},
		{orders, "ord" + valid[3:], "prefix", `: want "ORD"`},
		{orders, "0RD" + valid[3:], "prefix", `: want "ORD"`},
		{orders, "ORD2026O40812345633094778953", "time", `: 'O' at byte 7 is not a digit`},
		{orders, "ORD-026040812345633094778953", "time", `: '-' at byte 3 is not a digit`},
		{orders, "ORD 026040812345633094778953", "time", `: ' ' at byte 3 is not a digit`},
		{orders, "ORD2026040812345633094x78953", "unique part", `: 'x' at byte 22 is not a digit`},
		{orders, "ORD202604081234563309477895X", "check digit", `: 'X' at byte 27 is not a digit`},
		{orders, "ORD2026040812345633094778954", "check digit", ""},
		{orders, "ORD2026040812345633094778935", "check digit", ""}, // neighbours swapped
		{orders, "ORD2026040812345633094779853", "check digit", ""}, // neighbours swapped
		{orders, ord("20261308123456", unique), "time", ": month 13"},
		{orders, ord("20260008123456", unique), "time", ": month 00"},
		{orders, ord("20260400123456", unique), "time", ": day 00 of 2026-04"},
		{orders, ord("20260431123456", unique), "time", ": day 31 of 2026-04"},
		{orders, ord("20270229123456", unique), "time", ": day 29 of 2027-02"},
		{orders, ord("21000229123456", unique), "time", ": day 29 of 2100-02"},
		{orders, ord("20260408243456", unique), "time", ": hour 24"},
		{orders, ord("20260408126056", unique), "time", ": minute 60"},
		{orders, ord("20260408123460", unique), "time", ": second 60"},
		{orders, ord("20250101075959", unique), "time", ": before the layout's epoch, 2025-01-01 08:00:00"},
		{orders, ord("00000101000000", unique), "time", ": before the layout's epoch, 2025-01-01 08:00:00"},
		{orders, ord("20990101000000", unique), "time", ": after the layout's last tick, at 2094-09-07 23:47:35.551"},
		{orders, ord("99991231235959", unique), "time", ": after the layout's last tick, at 2094-09-07 23:47:35.551"},
		{orders, ord("20940907234736", "0000000000"), "time", ": after the layout's last tick, at 2094-09-07 23:47:35.551"},
		{orders, ord("20940907234735", "2315255808"), "time", ": after the layout's last tick, at 2094-09-07 23:47:35.551"}, // 552*1024*4096
		{orders, ord("20260408123456", "4194304000"), "unique part", ": above the largest, 4194303999"},
		{orders, ord("20260408123456", "9999999999"), "unique part", ": above the largest, 4194303999"},
		{plain, "ORD20260408123456330947789x", "unique part", `: 'x' at byte 26 is not a digit`},
		{plain, "ORD20260408123456419430400O", "unique part", `: 'O' at byte 26 is not a digit`},
		{plain, "ORD202604081234564194304000", "unique part", ": above the largest, 4194303999"},
		{hours, "H202604081215099494400000", "unique part", ": above the largest, 15099494399999"},
		{hours, "H202604082415099494399999", "time", ": hour 24"},
		{short, "241231235959" + "3309477895", "time", ": before the layout's epoch, 2025-01-01 08:00:00"},
		{short, "990101000000" + "3309477895", "time", ": after the layout's last tick, at 2094-09-07 23:47:35.551"},
		{short, "270229000000" + "3309477895", "time", ": day 29 of 2027-02"},
	} {
		t.Run(c.in, func(t *testing.T) {
			id, err := c.f.Parse(c.in)
			if id != 0 || !errors.Is(err, number.ErrInvalid) {
				t.Fatalf("Parse = %d, %v; want ErrInvalid", id, err)
			}
			var pe *number.ParseError
			if !errors.As(err, &pe) || pe.Reason != c.reason || pe.Input != c.in {
				t.Fatalf("Parse: %#v; want a *ParseError of reason %q", err, c.reason)
			}
			if want := fmt.Sprintf("number: parse %q: bad %s%s", c.in, c.reason, c.detail); err.Error() != want {
				t.Errorf("message\n%s\nwant\n%s", err, want)
			}
		})
	}

	for _, ok := range []struct {
		f  *number.Format
		in string
	}{
		{orders, valid},
		{orders, lastNo},
		{orders, ord("20280229123456", unique)},
		{orders, ord("20250101080000", "0000000000")}, // ID 0
		{short, "260408123456" + "3309477895"},
		{hours, "H202604081200000000000000"},
		{hours, "H202604081215099494399999"}, // the largest unique part
	} {
		if _, err := ok.f.Parse(ok.in); err != nil {
			t.Errorf("Parse(%q): %v", ok.in, err)
		}
	}
}

func TestParseErrorLongInput(t *testing.T) {
	f := number.MustCompile(number.Spec{Layout: snowflake.Classic()})
	in := strings.Repeat("9", 1000)
	_, err := f.Parse(in)
	var pe *number.ParseError
	if !errors.As(err, &pe) || pe.Input != in {
		t.Fatalf("Parse: %v", err)
	}
	if msg := err.Error(); len(msg) > 150 || !strings.Contains(msg, `99..."`) {
		t.Errorf("message %q: want the input cut short", msg)
	}
}
