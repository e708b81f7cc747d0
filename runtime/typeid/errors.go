package typeid

import (
	"errors"
	"strconv"
)

// ErrInvalid is matched by every *PrefixError and *ParseError.
var ErrInvalid = errors.New("typeid: invalid")

// PrefixError says why a string is not a valid TypeID prefix. It matches ErrInvalid.
type PrefixError struct {
	// Prefix is the prefix as given.
	Prefix string
	// Problem says what is wrong with it, for example "ends with '_'" or
	// "has uppercase 'U' at 0".
	Problem string
}

// Error implements error.
func (e *PrefixError) Error() string {
	return "typeid: invalid prefix " + quote(e.Prefix) + ": " + e.Problem
}

// Is reports whether target is ErrInvalid.
func (e *PrefixError) Is(target error) bool { return target == ErrInvalid }

// ParseError says why a string is not a TypeID, or not one with the wanted prefix. It
// matches ErrInvalid.
type ParseError struct {
	// Input is the string as given.
	Input string
	// Want is the prefix Parse was asked for. It is empty for Split, which takes any
	// prefix, and for DecodeSuffix, which takes none.
	Want string
	// Reason says what is wrong, for example `prefix "user", want "order"` or
	// "suffix is 25 bytes long, want 26". Positions in it are byte offsets into Input.
	Reason string
}

// Error implements error.
func (e *ParseError) Error() string {
	return "typeid: invalid ID " + quote(e.Input) + ": " + e.Reason
}

// Is reports whether target is ErrInvalid.
func (e *ParseError) Is(target error) bool { return target == ErrInvalid }

// maxQuoted bounds how much of a hostile input an error message repeats.
const maxQuoted = 96

// quote quotes s for an error message, cut after maxQuoted bytes.
func quote(s string) string {
	if len(s) > maxQuoted {
		return strconv.Quote(s[:maxQuoted]) + "..."
	}
	return strconv.Quote(s)
}
