package millis

import (
	"testing"
	"time"
)

func TestOf(t *testing.T) {
	for _, tc := range []struct {
		t    time.Time
		want int64
	}{
		{time.Time{}, 0},
		{time.UnixMilli(1000), 1000},
		{time.UnixMilli(1000).Add(time.Nanosecond), 1001},
		{time.UnixMilli(1000).Add(999 * time.Microsecond), 1001},
	} {
		if got := Of(tc.t); got != tc.want {
			t.Errorf("Of(%v) = %d, want %d", tc.t, got, tc.want)
		}
	}
}

func TestTime(t *testing.T) {
	if !Time(0).IsZero() || !Time(-5).IsZero() || !Time(1000).Equal(time.UnixMilli(1000)) {
		t.Errorf("Time(0), Time(-5), Time(1000) = %v, %v, %v", Time(0), Time(-5), Time(1000))
	}
}

func TestTTL(t *testing.T) {
	for _, tc := range []struct {
		ttl  time.Duration
		want int64
	}{
		{0, 1},
		{time.Microsecond, 1},
		{1500 * time.Microsecond, 1},
		{10 * time.Second, 10000},
	} {
		if got := TTL(tc.ttl); got != tc.want {
			t.Errorf("TTL(%v) = %d, want %d", tc.ttl, got, tc.want)
		}
	}
}
