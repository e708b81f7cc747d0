package uniq

import (
	"bytes"
	"database/sql/driver"
	"reflect"
	"time"
)

// Same reports whether the value a retried create sends for a checked field equals the
// one stored, compared as the database compares what it was sent: each side is turned
// into the value database/sql would pass the driver (a driver.Valuer's Value, a pointer's
// target, a nil pointer as NULL, integers as int64), then instants compare by
// time.Time.Equal, bytes by content, anything else by reflect.DeepEqual. A nil pointer to
// a type whose Value has a value receiver (a generated ID, sql.NullString) is NULL, as
// database/sql makes it, never a call that panics. The GORM and ent plugins' CreateOrGet
// compare the fields they check with it, or with SameAt for instants, before they answer
// MismatchError.
func Same(sent, stored any) bool { return SameAt(sent, stored, 0) }

// SameAt is Same for a column that keeps instants to unit (time.Microsecond for
// PostgreSQL's timestamp, time.Millisecond for MySQL's DATETIME(3), time.Second for
// DATETIME): a sent instant is the stored one if it equals it, or if truncating or
// rounding it to unit does (drivers and servers differ in which of the two they do). A
// unit of zero or less compares instants exactly.
func SameAt(sent, stored any, unit time.Duration) bool {
	a, b := sqlValue(sent), sqlValue(stored)
	switch x := a.(type) {
	case time.Time:
		y, ok := b.(time.Time)
		if !ok {
			return false
		}
		if x.Equal(y) {
			return true
		}
		return unit > 0 && (x.Truncate(unit).Equal(y) || x.Round(unit).Equal(y))
	case []byte:
		y, ok := b.([]byte)
		return ok && bytes.Equal(x, y)
	}
	return reflect.DeepEqual(a, b)
}

// sqlValue is v as database/sql would send it to a driver: what
// driver.DefaultParameterConverter makes of it (Valuers called, with a nil pointer to a
// value-receiver Valuer as NULL; pointers followed; integers as int64, floats as float64),
// or v itself when the converter refuses it (a struct a serializer writes, say), with its
// pointers followed.
func sqlValue(v any) any {
	if x, err := driver.DefaultParameterConverter.ConvertValue(v); err == nil {
		return x
	}
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return nil
		}
		rv = rv.Elem()
	}
	if !rv.IsValid() {
		return nil
	}
	return rv.Interface()
}
