package uniq

import (
	"bytes"
	"database/sql/driver"
	"reflect"
	"time"
)

// Same reports whether a value a retried create sends for a checked field equals the one
// stored: by their SQL values when both are driver.Valuers, instants by time.Time.Equal,
// bytes by content, anything else by reflect.DeepEqual. The GORM and ent plugins'
// CreateOrGet compare the fields they check with it before they answer MismatchError.
func Same(a, b any) bool {
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
