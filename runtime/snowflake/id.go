package snowflake

import (
	"fmt"
	"strconv"
)

// ID is a snowflake ID. It is non-negative; its fields depend on the Layout that issued it.
type ID int64

// String returns the ID in decimal.
func (id ID) String() string { return strconv.FormatInt(int64(id), 10) }

// AppendText implements encoding.TextAppender: it appends the decimal form without
// allocating when buf has room.
func (id ID) AppendText(buf []byte) ([]byte, error) {
	return strconv.AppendInt(buf, int64(id), 10), nil
}

// MarshalText implements encoding.TextMarshaler.
func (id ID) MarshalText() ([]byte, error) { return id.AppendText(nil) }

// UnmarshalText implements encoding.TextUnmarshaler.
func (id *ID) UnmarshalText(b []byte) error {
	v, err := ParseID(string(b))
	if err != nil {
		return err
	}
	*id = v
	return nil
}

// ParseID parses the decimal form of an ID. Anything but plain decimal digits of a
// non-negative int64 is an error wrapping ErrInvalidID.
func ParseID(s string) (ID, error) {
	if s == "" || len(s) > 19 {
		return 0, fmt.Errorf("snowflake: parse %q: want 1 to 19 decimal digits: %w", s, ErrInvalidID)
	}
	var v uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("snowflake: parse %q: %q is not a decimal digit: %w", s, c, ErrInvalidID)
		}
		v = v*10 + uint64(c-'0')
	}
	if v > 1<<63-1 {
		return 0, fmt.Errorf("snowflake: parse %q: above the largest int64: %w", s, ErrInvalidID)
	}
	return ID(v), nil
}
