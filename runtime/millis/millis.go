package millis

import "time"

// Of returns t in Unix milliseconds, rounded up, and 0 for the zero time. A time kept as
// a floor (the last tick a lease holder issued) must not move earlier when it is stored:
// a tick is at least a millisecond, but the layout's epoch need not fall on one.
func Of(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	ms := t.UnixMilli()
	if time.UnixMilli(ms).Before(t) {
		ms++
	}
	return ms
}

// Time returns the time of Unix milliseconds ms, and the zero time for 0 or less (what
// Of writes for the zero time).
func Time(ms int64) time.Time {
	if ms <= 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms)
}

// Duration returns d in whole milliseconds, rounded up, and 0 for d of 0 or less: a TTL
// or lock of 1.5 ms is kept for 2 ms, never 1, and a positive one never becomes 0.
func Duration(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	return int64((d + time.Millisecond - 1) / time.Millisecond)
}

// After returns now in Unix milliseconds (truncated, as a database's or Redis's clock
// reads it) plus d by Duration: the expiry a store records for something that lasts d
// from now, and now itself for d of 0.
func After(now time.Time, d time.Duration) int64 { return now.UnixMilli() + Duration(d) }
