package codec

import (
	"encoding/hex"
	"fmt"
)

// ParseObjectID reads a MongoDB ObjectId, 24 hex characters in either case, for the type
// named typ; errors are *ParseError.
func ParseObjectID(typ, s string) ([12]byte, error) {
	var id [12]byte
	if len(s) != 24 {
		return id, Errorf(typ, s, "want 24 hex characters, got %d bytes", len(s))
	}
	if _, err := hex.Decode(id[:], []byte(s)); err != nil {
		return id, Errorf(typ, s, "%w", err)
	}
	return id, nil
}

// ScanObjectID converts a value read from SQL for the ObjectId type named typ: 12 raw
// bytes (binary columns) or 24 hex characters. NULL gives null true.
func ScanObjectID(typ string, src any) (id [12]byte, null bool, err error) {
	switch x := src.(type) {
	case nil:
		return id, true, nil
	case []byte:
		if len(x) == 12 {
			return [12]byte(x), false, nil
		}
		id, err = ParseObjectID(typ, string(x))
		return id, false, err
	case string:
		id, err = ParseObjectID(typ, x)
		return id, false, err
	}
	return id, false, &ParseError{Type: typ, Reason: fmt.Sprintf("cannot scan a %T into it", src)}
}
