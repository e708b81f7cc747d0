package number_test

import (
	"errors"
	"testing"
	"time"

	"github.com/idgen/idgen/runtime/number"
	"github.com/idgen/idgen/runtime/snowflake"
)

// fuzzFormats covers every layout preset, prefixes empty and not, all three resolutions,
// two-digit years, offsets of whole and half hours, and check digits.
func fuzzFormats() []*number.Format {
	shanghai, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		panic(err)
	}
	return []*number.Format{
		number.MustCompile(number.Spec{Prefix: "ORD", Zone: shanghai, Layout: snowflake.Classic(), Check: true}),
		number.MustCompile(number.Spec{Prefix: "ORD", Zone: shanghai, Layout: snowflake.Classic()}),
		number.MustCompile(number.Spec{Time: "060102150405", Layout: snowflake.ClassicDC()}),
		number.MustCompile(number.Spec{Prefix: "TXN", Time: "200601021504", Layout: snowflake.Sonyflake(), Check: true}),
		number.MustCompile(number.Spec{Prefix: "J-", Time: "2006010215", Zone: time.FixedZone("", -3*3600), Layout: snowflake.JSONSafe()}),
		number.MustCompile(number.Spec{Prefix: "K_", Time: "0601021504", Zone: time.FixedZone("", 5*3600+30*60), Layout: snowflake.Classic(), Check: true}),
	}
}

// FuzzParse: Parse never panics, fails only with a *ParseError, and accepts only what
// Format writes: a parsed string formats back to itself.
func FuzzParse(f *testing.F) {
	formats := fuzzFormats()
	seeds := []string{
		"", "ORD", "ORD2026040812345633094778953", "ORD2026040812345633094778954",
		"ORD202604081234563309477895", "ORD20261308123456330947789", "ORD2094090723473523110615044",
		"2604081234563309477895", "TXN2026040804340952610342439", "J-2026040801000000", "\x00\xff",
		"ORD99999999999999999999999999", "ORD00000000000000000000000000",
	}
	// Valid numbers of every format at the edges of the layouts, and typos of them.
	for _, fm := range formats {
		l := fm.Spec().Layout
		for _, p := range []snowflake.Parts{{}, {Tick: 1, Worker: 1, Seq: 1}, {Tick: l.MaxTick(), Worker: l.MaxWorker(), Seq: l.MaxSeq()}, {Tick: l.MaxTick() / 3, Seq: 2}} {
			id, _ := l.Compose(p)
			no, _ := fm.Format(id)
			seeds = append(seeds, no, no[:len(no)-1]+"x", no[:len(no)-1]+string('0'+(no[len(no)-1]-'0'+1)%10))
		}
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, fm := range formats {
			id, err := fm.Parse(s)
			if err != nil {
				var pe *number.ParseError
				if !errors.As(err, &pe) || !errors.Is(err, number.ErrInvalid) || pe.Input != s {
					t.Fatalf("Parse(%q): %v, want a *ParseError", s, err)
				}
				switch pe.Reason {
				case "length", "prefix", "time", "unique part", "check digit":
				default:
					t.Fatalf("Parse(%q): unknown reason %q", s, pe.Reason)
				}
				continue
			}
			back, err := fm.Format(id)
			if err != nil || back != s {
				t.Fatalf("Parse(%q) = %d, formats back to %q, %v", s, id, back, err)
			}
		}
	})
}

// FuzzFormat: every int64 either formats and parses back to itself, or is refused as an
// invalid ID of the layout.
func FuzzFormat(f *testing.F) {
	formats := fuzzFormats()
	for _, v := range []int64{0, 1, -1, 1<<53 - 1, 1 << 53, 1<<63 - 1, -1 << 63, 167492386455461895} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v int64) {
		for _, fm := range formats {
			no, err := fm.Format(snowflake.ID(v))
			if err != nil {
				if !errors.Is(err, snowflake.ErrInvalidID) {
					t.Fatalf("Format(%d): %v", v, err)
				}
				continue
			}
			if len(no) != fm.Width() {
				t.Fatalf("Format(%d) = %q, want %d bytes", v, no, fm.Width())
			}
			if id, err := fm.Parse(no); err != nil || id != snowflake.ID(v) {
				t.Fatalf("Parse(Format(%d) = %q) = %d, %v", v, no, id, err)
			}
		}
	})
}
