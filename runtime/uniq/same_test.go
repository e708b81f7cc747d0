package uniq

import (
	"database/sql/driver"
	"testing"
	"time"
)

type cents int64

func (c cents) Value() (driver.Value, error) { return int64(c), nil }

func TestSame(t *testing.T) {
	now := time.Now()
	for _, tc := range []struct {
		a, b any
		want bool
	}{
		{int64(1), int64(1), true},
		{int64(1), int64(2), false},
		{"a", "a", true},
		{now, now.UTC(), true},
		{now, now.Add(time.Nanosecond), false},
		{[]byte("x"), []byte("x"), true},
		{[]byte("x"), "x", false},
		{cents(5), cents(5), true},
		{cents(5), cents(6), false},
		{nil, nil, true},
		{int64(1), nil, false},
	} {
		if got := Same(tc.a, tc.b); got != tc.want {
			t.Errorf("Same(%#v, %#v) = %v", tc.a, tc.b, got)
		}
	}
}
