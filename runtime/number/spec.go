package number

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"
	"time"

	"github.com/idgen/idgen/runtime/snowflake"
)

// defaultTime is the time layout used when Spec.Time is empty: down to the second.
const defaultTime = "20060102150405"

// maxPrefix is the longest prefix Compile accepts, in bytes.
const maxPrefix = 16

// Spec describes a number format. Compile checks it and turns it into a Format.
type Spec struct {
	// Prefix starts every number, as "ORD" in ORD20260408123456.... It may be empty; it
	// holds at most 16 ASCII letters, digits, '-' and '_'.
	Prefix string
	// Time is a Go time layout of numeric fields written back to back from the year down
	// to the hour, minute or second: "2006010215", "200601021504" or "20060102150405", or
	// the same with a two-digit year "06". The smallest field is the format's resolution.
	// Empty means "20060102150405".
	Time string
	// Zone is the zone the time is written in. Nil means UTC. It must keep one UTC offset
	// over the layout's whole lifetime, so zones with daylight saving time are refused.
	Zone *time.Location
	// Layout is the snowflake layout of the IDs the format writes.
	Layout snowflake.Layout
	// Check appends a Luhn (mod 10) check digit computed over all digits after the prefix,
	// so Parse catches any single mistyped digit and most swapped neighbours.
	Check bool
}

// field is one numeric field of a time layout.
type field struct {
	token, name string
	unit        time.Duration // fixed length of the field's step; 0 for calendar units
}

// fields lists the fields a time layout may hold, in the order it must hold them.
var fields = [...]field{
	{"2006", "year", 0},
	{"01", "month", 0},
	{"02", "day", 0},
	{"15", "hour", time.Hour},
	{"04", "minute", time.Minute},
	{"05", "second", time.Second},
}

// minFields is how many fields a time layout needs at least: down to the hour.
const minFields = 4

// timeLayout is a checked Spec.Time.
type timeLayout struct {
	n     int  // fields present: fields[:n]
	year2 bool // "06" instead of "2006"
	width int  // bytes of time text
}

// resolution returns the unit of the smallest field.
func (tl timeLayout) resolution() time.Duration { return fields[tl.n-1].unit }

// Compile checks s and returns the Format it describes. A Spec that cannot give every ID
// of its layout a distinct number of one width, sorted like the IDs of a worker, is
// refused with a *SpecError naming the field.
func Compile(s Spec) (*Format, error) {
	if s.Time == "" {
		s.Time = defaultTime
	}
	if s.Zone == nil {
		s.Zone = time.UTC
	}
	bad := func(field, format string, args ...any) (*Format, error) {
		return nil, &SpecError{Field: field, Problem: fmt.Sprintf(format, args...)}
	}

	if err := checkPrefix(s.Prefix); err != "" {
		return bad("Prefix", "%q %s", s.Prefix, err)
	}
	l := s.Layout
	if err := l.Validate(); err != nil {
		return nil, &SpecError{Field: "Layout", Problem: "fails validation: " + err.Error(), err: err}
	}
	tl, err := parseTimeLayout(s.Time)
	if err != nil {
		return nil, err
	}
	res := tl.resolution()

	// The last tick is the last instant a number shows; End is checked too, as the
	// lifetime's bound.
	last := l.TimeOf(l.MaxTick())
	offset, err := fixedOffset(s.Zone, l.Epoch, l.End())
	if err != nil {
		return nil, err
	}
	// With one offset, the zone's wall clock is the UTC wall clock shifted by it: compute
	// in UTC on shifted instants and no zone rule is consulted again.
	epochLocal := l.Epoch.UTC().Add(offset)
	lastLocal := last.UTC().Add(offset)

	if res%l.Unit != 0 {
		return bad("Layout.Unit", "%v does not divide the resolution of Time %q (one %s): %s must hold a whole number of ticks",
			l.Unit, s.Time, fields[tl.n-1].name, withArticle(fields[tl.n-1].name))
	}
	// Truncate counts from the zero time, which starts a day, and res divides a day: so
	// this is truncation on the zone's wall clock.
	if !epochLocal.Truncate(res).Equal(epochLocal) {
		return bad("Layout.Epoch", "%s is %s in %s, not the start of %s: the epoch must fall on the resolution of Time %q so ticks split evenly into it",
			l.Epoch.UTC().Format(time.RFC3339Nano), epochLocal.Format("2006-01-02T15:04:05.999999999"), zoneName(s.Zone), withArticle(fields[tl.n-1].name), s.Time)
	}
	y0, y1 := epochLocal.Year(), lastLocal.Year()
	if y0 < 0 || y1 > 9999 {
		return bad("Layout.Epoch", "puts the lifetime in years %d to %d in %s: four digits show years 0000 to 9999", y0, y1, zoneName(s.Zone))
	}
	if tl.year2 && y0/100 != y1/100 {
		next := (y0/100 + 1) * 100
		return bad("Time", "%q has a two-digit year \"06\", but the layout's lifetime runs from %d to %d in %s: "+
			"\"06\" needs the lifetime within one century (as 2000-2099), or \"00\" for %d sorts before \"99\" for %d and years 100 apart share numbers; use \"2006\"",
			s.Time, y0, y1, zoneName(s.Zone), next, next-1)
	}

	subTicks := uint64(res / l.Unit)
	hi, lo := bits.Mul64(subTicks, uint64(1)<<(l.WorkerBits+l.SeqBits))
	if hi != 0 {
		return bad("Layout", "%v gives %d ticks per %s times 2^%d workers and sequences, more than 64 bits hold: use a finer Time resolution or a coarser Unit",
			l, subTicks, fields[tl.n-1].name, l.WorkerBits+l.SeqBits)
	}
	uniqueMax := lo - 1
	uniqueWidth := len(strconv.FormatUint(uniqueMax, 10))

	f := &Format{
		spec:        s,
		layout:      l,
		prefix:      s.Prefix,
		tl:          tl,
		res:         res,
		subTicks:    int64(subTicks),
		workers:     uint64(l.MaxWorker()) + 1,
		seqs:        uint64(l.MaxSeq()) + 1,
		uniqueMax:   uniqueMax,
		uniqueWidth: uniqueWidth,
		century:     y0 / 100 * 100,
		epochLocal:  epochLocal,
		maxTick:     l.MaxTick(),
		check:       s.Check,
	}
	f.width = len(s.Prefix) + tl.width + uniqueWidth
	if s.Check {
		f.width++
	}
	return f, nil
}

// MustCompile is like Compile but panics if the spec is invalid. It is meant for
// package-level variables, as in generated code.
func MustCompile(s Spec) *Format {
	f, err := Compile(s)
	if err != nil {
		panic(err)
	}
	return f
}

// checkPrefix returns what is wrong with p, or "".
func checkPrefix(p string) string {
	if len(p) > maxPrefix {
		return fmt.Sprintf("is %d bytes long, more than %d", len(p), maxPrefix)
	}
	for i, r := range p {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '-' || r == '_') {
			return fmt.Sprintf("has %q at byte %d: a prefix holds only ASCII letters, digits, '-' and '_'", r, i)
		}
	}
	return ""
}

// parseTimeLayout checks a Spec.Time.
func parseTimeLayout(s string) (timeLayout, error) {
	bad := func(at int, format string, args ...any) (timeLayout, error) {
		problem := fmt.Sprintf(format, args...)
		if at >= 0 {
			problem = describe(s[at:]) + fmt.Sprintf(" at byte %d: ", at) + problem
		}
		return timeLayout{}, &SpecError{Field: "Time", Problem: fmt.Sprintf("%q: %s", s, problem)}
	}
	var tl timeLayout
	rest := s
	switch {
	case strings.HasPrefix(rest, "2006"):
		tl.width = 4
	case strings.HasPrefix(rest, "06"):
		tl.width, tl.year2 = 2, true
	default:
		return bad(0, "the layout must start with the year, \"2006\" (or \"06\")")
	}
	rest = rest[tl.width:]
	tl.n = 1
	for _, f := range fields[1:] {
		if rest == "" {
			break
		}
		if !strings.HasPrefix(rest, f.token) {
			return bad(len(s)-len(rest), "want the %s %q next; fields run year, month, day, hour, minute, second with nothing between", f.name, f.token)
		}
		rest = rest[len(f.token):]
		tl.n++
		tl.width += len(f.token)
	}
	if rest != "" {
		return bad(len(s)-len(rest), "nothing may follow the second \"05\"")
	}
	if tl.n < minFields {
		return bad(-1, "stops at the %s: go down at least to the hour (\"2006010215\") so the resolution is a fixed duration, an hour, a minute or a second; days, months and years vary in length",
			fields[tl.n-1].name)
	}
	return tl, nil
}

// layoutTokens are the Go time layout elements describe recognises, longest first where
// one is a prefix of another.
var layoutTokens = [...]struct{ token, what string }{
	{"January", "month name"}, {"Jan", "month name"},
	{"Monday", "weekday name"}, {"Mon", "weekday name"},
	{"MST", "zone abbreviation"}, {"PM", "AM/PM mark"}, {"pm", "AM/PM mark"},
	{"Z07:00:00", "UTC offset"}, {"Z070000", "UTC offset"}, {"Z07:00", "UTC offset"}, {"Z0700", "UTC offset"}, {"Z07", "UTC offset"},
	{"-07:00:00", "UTC offset"}, {"-070000", "UTC offset"}, {"-07:00", "UTC offset"}, {"-0700", "UTC offset"}, {"-07", "UTC offset"},
	{"2006", "year"}, {"_2006", "padded year"}, {"__2", "day of the year"}, {"002", "day of the year"},
	{"01", "month"}, {"02", "day"}, {"_2", "space-padded day"}, {"15", "hour"}, {"03", "12-hour hour"},
	{"04", "minute"}, {"05", "second"}, {"06", "two-digit year"},
	{"1", "unpadded month"}, {"2", "unpadded day"}, {"3", "unpadded 12-hour hour"}, {"4", "unpadded minute"}, {"5", "unpadded second"},
}

// describe names the layout element s starts with, for an error message.
func describe(s string) string {
	if len(s) >= 2 && (s[0] == '.' || s[0] == ',') && (s[1] == '0' || s[1] == '9') {
		n := 2
		for n < len(s) && s[n] == s[1] {
			n++
		}
		return fmt.Sprintf("%q (fractional seconds)", s[:n])
	}
	for _, t := range layoutTokens {
		if strings.HasPrefix(s, t.token) {
			return fmt.Sprintf("%q (%s)", t.token, t.what)
		}
	}
	r := s[:1]
	if s[0] >= 0x80 {
		r = string([]rune(s)[:1])
	}
	if c := s[0]; 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c >= 0x80 {
		return fmt.Sprintf("%q (not a layout field)", r)
	}
	return fmt.Sprintf("separator %q", r)
}

// fixedOffset returns the one UTC offset zone has from from to to, or a *SpecError naming
// the first change. It walks the zone's periods with ZoneBounds, from one change to the
// next, so a change of any length is found, not only those that span a sampled instant.
func fixedOffset(zone *time.Location, from, to time.Time) (time.Duration, error) {
	_, off0 := from.In(zone).Zone()
	for t := from; ; {
		_, off := t.In(zone).Zone()
		if off != off0 {
			return 0, &SpecError{Field: "Zone", Problem: fmt.Sprintf(
				"%s changes its UTC offset from %s to %s at %s: local times repeat or are skipped, so numbers would collide or sort out of order; "+
					"use a zone with one offset from %s to %s (as UTC, Asia/Shanghai or a time.FixedZone)",
				strconv.Quote(zone.String()), formatOffset(off0), formatOffset(off), t.In(zone).Format(time.RFC3339),
				from.UTC().Format(time.DateOnly), to.UTC().Format(time.DateOnly))}
		}
		if !t.Before(to) {
			return time.Duration(off0) * time.Second, nil
		}
		_, end := t.In(zone).ZoneBounds()
		switch {
		case end.IsZero(): // this offset lasts forever
			return time.Duration(off0) * time.Second, nil
		case end.After(t):
			t = end
		default: // no bound known: sample month by month
			t = t.AddDate(0, 1, 0)
		}
		if t.After(to) {
			t = to
		}
	}
}

// withArticle puts "a" or "an" before the name of a field.
func withArticle(name string) string {
	if name == "hour" {
		return "an " + name
	}
	return "a " + name
}

// zoneName quotes the zone's name for an error message.
func zoneName(zone *time.Location) string { return "zone " + strconv.Quote(zone.String()) }

// formatOffset writes a UTC offset in seconds as -05:00 (or +05:45:30).
func formatOffset(sec int) string {
	sign := byte('+')
	if sec < 0 {
		sign, sec = '-', -sec
	}
	s := fmt.Sprintf("%c%02d:%02d", sign, sec/3600, sec/60%60)
	if sec%60 != 0 {
		s += fmt.Sprintf(":%02d", sec%60)
	}
	return s
}
