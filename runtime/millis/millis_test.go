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
	for _, tc := range []struct {
		ms   int64
		want time.Time
	}{
		{0, time.Time{}},
		{-5, time.Time{}},
		{1000, time.UnixMilli(1000)},
	} {
		if got := Time(tc.ms); !got.Equal(tc.want) || got.IsZero() != tc.want.IsZero() {
			t.Errorf("Time(%d) = %v, want %v", tc.ms, got, tc.want)
		}
	}
	if got := Time(Of(time.UnixMilli(1234))); !got.Equal(time.UnixMilli(1234)) {
		t.Errorf("Time(Of(1234 ms)) = %v", got)
	}
}

func TestDuration(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want int64
	}{
		{-time.Second, 0},
		{0, 0},
		{time.Nanosecond, 1},
		{time.Microsecond, 1},
		{time.Millisecond, 1},
		{1500 * time.Microsecond, 2}, // never shortened: 1.5 ms is 2 ms, not 1
		{10 * time.Second, 10000},
		{10*time.Second + time.Nanosecond, 10001},
	} {
		if got := Duration(tc.d); got != tc.want {
			t.Errorf("Duration(%v) = %d, want %d", tc.d, got, tc.want)
		}
	}
}

func TestAfter(t *testing.T) {
	now := time.UnixMilli(5000).Add(700 * time.Microsecond)
	for _, tc := range []struct {
		d    time.Duration
		want int64
	}{
		{0, 5000},
		{time.Nanosecond, 5001},
		{time.Second, 6000},
	} {
		if got := After(now, tc.d); got != tc.want {
			t.Errorf("After(5000.7 ms, %v) = %d, want %d", tc.d, got, tc.want)
		}
	}
}
