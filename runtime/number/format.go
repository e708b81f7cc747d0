package number

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/idgen/idgen/runtime/snowflake"
)

// Format writes snowflake IDs as numbers and parses them back. Make one with Compile or
// MustCompile. A Format is immutable and safe for concurrent use.
type Format struct {
	spec   Spec // as compiled, with defaults filled in
	layout snowflake.Layout
	prefix string
	tl     timeLayout
	check  bool

	res         time.Duration // the time text's resolution R
	subTicks    int64         // ticks per R
	workers     uint64        // MaxWorker+1
	seqs        uint64        // MaxSeq+1
	uniqueMax   uint64        // largest unique part
	uniqueWidth int           // digits of the unique part
	width       int           // bytes of every number

	century    int       // the century of every year, with a two-digit year
	epochLocal time.Time // the epoch shifted by the zone's offset, in UTC: its wall clock
	maxTick    int64
}

// bufSize holds any number on the stack: a 16-byte prefix, 14 digits of time, 20 of unique
// part and a check digit.
const bufSize = 64

// Width returns the length in bytes of every number of the format.
func (f *Format) Width() int { return f.width }

// Spec returns the spec the format was compiled from, with Time and Zone filled in when
// they were left to their defaults.
func (f *Format) Spec() Spec { return f.spec }

// Append appends the number of id to dst and returns the extended buffer. It does not
// allocate when dst has Width bytes of room. An id that is negative or wider than the
// layout is an error wrapping snowflake.ErrInvalidID.
func (f *Format) Append(dst []byte, id snowflake.ID) ([]byte, error) {
	p, err := f.layout.Decode(id)
	if err != nil {
		return dst, fmt.Errorf("number: format: %w", err)
	}
	dst = slices.Grow(dst, f.width)
	dst = append(dst, f.prefix...)
	start := len(dst)
	q, sub := p.Tick/f.subTicks, p.Tick%f.subTicks
	dst = f.appendTime(dst, f.epochLocal.Add(time.Duration(q)*f.res))
	unique := (uint64(sub)*f.workers+uint64(p.Worker))*f.seqs + uint64(p.Seq)
	dst = appendPadded(dst, unique, f.uniqueWidth)
	if f.check {
		dst = append(dst, luhn(dst[start:]))
	}
	return dst, nil
}

// Format returns the number of id. An id that is negative or wider than the layout is an
// error wrapping snowflake.ErrInvalidID.
func (f *Format) Format(id snowflake.ID) (string, error) {
	var buf [bufSize]byte
	b, err := f.Append(buf[:0], id)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// Parse returns the ID whose number is s. It accepts exactly what Format writes: anything
// else is a *ParseError, matching ErrInvalid, whose Reason names the part that is wrong.
func (f *Format) Parse(s string) (snowflake.ID, error) {
	if len(s) != f.width {
		return 0, f.parseError(s, "length", "%d bytes, want %d", len(s), f.width)
	}
	np := len(f.prefix)
	if s[:np] != f.prefix {
		return 0, f.parseError(s, "prefix", "want %q", f.prefix)
	}
	digits := s[np:]
	for i := 0; i < len(digits); i++ {
		if c := digits[i]; c < '0' || c > '9' {
			return 0, f.parseError(s, f.partAt(i), "%q at byte %d is not a digit", c, np+i)
		}
	}
	// The check digit first: a mistyped digit anywhere is then reported as what it most
	// likely is, rather than as, say, month 13.
	if n := len(digits) - 1; f.check && luhn(digits[:n]) != digits[n] {
		return 0, f.parseError(s, "check digit", "")
	}

	tt := digits[:f.tl.width]
	var v [len(fields)]int // year, month, day, hour, minute, second
	v[1], v[2] = 1, 1
	i := 4
	if f.tl.year2 {
		v[0], i = f.century+atoi(tt[:2]), 2
	} else {
		v[0] = atoi(tt[:4])
	}
	for k := 1; k < f.tl.n; k++ {
		v[k] = atoi(tt[i : i+2])
		i += 2
	}
	switch {
	case v[1] < 1 || v[1] > 12:
		return 0, f.parseError(s, "time", "month %02d", v[1])
	case v[2] < 1 || v[2] > daysIn(time.Month(v[1]), v[0]):
		return 0, f.parseError(s, "time", "day %02d of %04d-%02d", v[2], v[0], v[1])
	case v[3] > 23:
		return 0, f.parseError(s, "time", "hour %02d", v[3])
	case v[4] > 59:
		return 0, f.parseError(s, "time", "minute %02d", v[4])
	case v[5] > 59:
		return 0, f.parseError(s, "time", "second %02d", v[5])
	}

	var unique uint64
	for _, c := range []byte(digits[f.tl.width : f.tl.width+f.uniqueWidth]) {
		d := uint64(c - '0')
		if unique > (math.MaxUint64-d)/10 {
			unique = math.MaxUint64
			break
		}
		unique = unique*10 + d
	}
	if unique > f.uniqueMax {
		return 0, f.parseError(s, "unique part", "above the largest, %d", f.uniqueMax)
	}
	perTick := f.workers * f.seqs
	sub, low := int64(unique/perTick), unique%perTick

	local := time.Date(v[0], time.Month(v[1]), v[2], v[3], v[4], v[5], 0, time.UTC)
	d := local.Sub(f.epochLocal) // saturates far outside the lifetime, and is then refused
	if d < 0 {
		return 0, f.parseError(s, "time", "before the layout's epoch, %s", f.epochLocal.Format(time.DateTime))
	}
	q := int64(d / f.res)
	if q > f.maxTick/f.subTicks || q*f.subTicks+sub > f.maxTick {
		return 0, f.parseError(s, "time", "after the layout's last tick, at %s", f.epochLocal.Add(time.Duration(f.maxTick)*f.layout.Unit).Format(time.DateTime+".000"))
	}
	id, err := f.layout.Compose(snowflake.Parts{Tick: q*f.subTicks + sub, Worker: int64(low / f.seqs), Seq: int64(low % f.seqs)})
	if err != nil {
		return 0, f.parseError(s, "time", "%v", err)
	}
	// Every part was checked above, so this holds; it is kept as the definition of a
	// valid number.
	var buf [bufSize]byte
	if b, err := f.Append(buf[:0], id); err != nil || string(b) != s {
		return 0, f.parseError(s, "time", "not in canonical form")
	}
	return id, nil
}

// Time returns the instant the tick of id starts at, in the format's zone. An id that is
// negative or wider than the layout is an error wrapping snowflake.ErrInvalidID.
func (f *Format) Time(id snowflake.ID) (time.Time, error) {
	t, err := f.layout.Time(id)
	if err != nil {
		return time.Time{}, fmt.Errorf("number: time: %w", err)
	}
	return t.In(f.spec.Zone), nil
}

// parseError returns a *ParseError for s.
func (f *Format) parseError(s, reason, format string, args ...any) error {
	return &ParseError{Input: s, Reason: reason, detail: fmt.Sprintf(format, args...)}
}

// partAt names the part digit i (after the prefix) belongs to.
func (f *Format) partAt(i int) string {
	switch {
	case i < f.tl.width:
		return "time"
	case i < f.tl.width+f.uniqueWidth:
		return "unique part"
	}
	return "check digit"
}

// appendTime writes the fields of t's wall clock the format shows.
func (f *Format) appendTime(dst []byte, t time.Time) []byte {
	year, month, day := t.Date()
	hour, minute, second := t.Clock()
	if f.tl.year2 {
		dst = appendPadded(dst, uint64(year%100), 2)
	} else {
		dst = appendPadded(dst, uint64(year), 4)
	}
	rest := [...]int{int(month), day, hour, minute, second}
	for _, v := range rest[:f.tl.n-1] {
		dst = appendPadded(dst, uint64(v), 2)
	}
	return dst
}

// appendPadded appends v in decimal, zero-padded to width digits; v has at most width
// digits.
func appendPadded(dst []byte, v uint64, width int) []byte {
	n := len(dst)
	dst = append(dst, make([]byte, width)...) // no allocation: the compiler extends in place
	for i := n + width - 1; i >= n; i-- {
		dst[i] = byte('0' + v%10)
		v /= 10
	}
	return dst
}

// atoi reads ASCII digits already checked.
func atoi(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n
}

// daysIn returns the number of days in month m of year y.
func daysIn(m time.Month, y int) int {
	switch m {
	case time.February:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case time.April, time.June, time.September, time.November:
		return 30
	}
	return 31
}

// luhn returns the check digit that makes digits followed by it pass the Luhn (mod 10)
// test: from the right, every other digit starting with the last is doubled.
func luhn[S string | []byte](digits S) byte {
	sum, double := 0, true
	for i := len(digits) - 1; i >= 0; i-- {
		d := int(digits[i] - '0')
		if double {
			if d *= 2; d > 9 {
				d -= 9
			}
		}
		sum += d
		double = !double
	}
	return byte('0' + (10-sum%10)%10)
}
