// Package payload compares the values a retried create carries with the stored ones, for
// the idempotent creates of both ORM plugins: a key reused with another payload is refused.
package payload

import (
	"bytes"
	"database/sql/driver"
	"reflect"
	"time"
)

// Equal reports whether a field's value in a create equals the stored one: by their SQL
// values when both are driver.Valuers, instants by time.Time.Equal, bytes by content.
func Equal(a, b any) bool {
	if av, ok := a.(driver.Valuer); ok {
		if bv, ok := b.(driver.Valuer); ok {
			x, errA := av.Value()
			y, errB := bv.Value()
			if errA == nil && errB == nil {
				a, b = x, y
			}
		}
	}
	switch x := a.(type) {
	case time.Time:
		y, ok := b.(time.Time)
		return ok && x.Equal(y)
	case []byte:
		y, ok := b.([]byte)
		return ok && bytes.Equal(x, y)
	}
	return reflect.DeepEqual(a, b)
}
