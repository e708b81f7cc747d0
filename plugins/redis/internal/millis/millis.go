// Package millis converts between time.Time and the Unix milliseconds the lease backends
// store, with one rounding rule for all of them (runtime/lease's SQL backend and
// plugins/redis/redislease). Each module that needs it keeps a copy of this file
// (runtime/lease/internal/millis, plugins/redis/internal/millis), since no module imports
// another's internal packages: keep the copies the same.
package millis

import "time"

// Of returns t in Unix milliseconds rounded up, so a later holder's floor is never below
// the tick t starts (a tick is at least a millisecond, but the layout's epoch need not fall
// on one); the zero time is 0.
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

// Time returns the time of Unix milliseconds ms, and the zero time for 0 or less.
func Time(ms int64) time.Time {
	if ms <= 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms)
}

// TTL returns ttl in whole milliseconds, at least one.
func TTL(ttl time.Duration) int64 { return max(1, ttl.Milliseconds()) }
