package uniq

import (
	"database/sql"
	"database/sql/driver"
	"testing"
	"time"
)

type cents int64

func (c cents) Value() (driver.Value, error) { return int64(c), nil }

// payload is a struct no driver takes (a field a serializer writes).
type payload struct{ A, B int }

func TestSame(t *testing.T) {
	now := time.Now()
	five := cents(5)
	one := int64(1)
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
		// Nil pointers are NULL, even to a type whose Value has a value receiver.
		{(*cents)(nil), (*cents)(nil), true},
		{(*cents)(nil), nil, true},
		{&five, (*cents)(nil), false},
		{(*cents)(nil), cents(0), false},
		{&five, cents(5), true},
		{&five, int64(5), true},
		{(*sql.NullString)(nil), (*sql.NullString)(nil), true},
		{(*sql.NullString)(nil), &sql.NullString{}, true}, // Valid false is NULL too
		{(*sql.NullString)(nil), &sql.NullString{String: "x", Valid: true}, false},
		{sql.NullString{String: "x", Valid: true}, "x", true},
		{(*int64)(nil), (*int64)(nil), true},
		{&one, int64(1), true},
		{&one, (*int64)(nil), false},
		{int32(1), int64(1), true}, // as the driver receives them
		{payload{1, 2}, payload{1, 2}, true},
		{&payload{1, 2}, payload{1, 2}, true},
		{payload{1, 2}, payload{1, 3}, false},
		{(*payload)(nil), nil, true},
	} {
		if got := Same(tc.a, tc.b); got != tc.want {
			t.Errorf("Same(%#v, %#v) = %v", tc.a, tc.b, got)
		}
	}
}

func TestSameAt(t *testing.T) {
	sent := time.Date(2026, 12, 4, 10, 30, 16, 513578621, time.UTC)
	for _, tc := range []struct {
		name   string
		stored time.Time
		unit   time.Duration
		want   bool
	}{
		{"exact", sent, 0, true},
		{"exact, another zone", sent.In(time.FixedZone("UTC+8", 8*3600)), time.Microsecond, true},
		{"microseconds, truncated (pgx)", sent.Truncate(time.Microsecond), time.Microsecond, true},
		{"microseconds, rounded (PostgreSQL from text)", sent.Round(time.Microsecond), time.Microsecond, true},
		{"milliseconds, truncated (MariaDB)", sent.Truncate(time.Millisecond), time.Millisecond, true},
		{"milliseconds, rounded (MySQL)", sent.Round(time.Millisecond), time.Millisecond, true},
		{"seconds, rounded", time.Date(2026, 12, 4, 10, 30, 17, 0, time.UTC), time.Second, true},
		{"seconds, truncated", time.Date(2026, 12, 4, 10, 30, 16, 0, time.UTC), time.Second, true},
		{"exact compare of a stored truncation", sent.Truncate(time.Microsecond), 0, false},
		{"two microseconds on", sent.Truncate(time.Microsecond).Add(2 * time.Microsecond), time.Microsecond, false},
		{"another millisecond", sent.Truncate(time.Millisecond).Add(-time.Millisecond), time.Millisecond, false},
		{"the next second", time.Date(2026, 12, 4, 10, 30, 18, 0, time.UTC), time.Second, false},
	} {
		if got := SameAt(sent, tc.stored, tc.unit); got != tc.want {
			t.Errorf("%s: SameAt(%v, %v, %v) = %v", tc.name, sent, tc.stored, tc.unit, got)
		}
	}
	if SameAt(sent, "2026-12-04", time.Second) {
		t.Error("an instant is the same as text")
	}
	var null *time.Time
	if !SameAt(null, nil, time.Second) || SameAt(&sent, null, time.Second) {
		t.Error("nil *time.Time is NULL")
	}
}
