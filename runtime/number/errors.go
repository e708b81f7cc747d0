package number

import (
	"errors"
	"strconv"
)

var (
	// ErrInvalidSpec is matched by every *SpecError.
	ErrInvalidSpec = errors.New("number: invalid spec")
	// ErrInvalid is matched by every *ParseError.
	ErrInvalid = errors.New("number: invalid number")
)

// SpecError says which field of a Spec is wrong and why. It matches ErrInvalidSpec and,
// when the Layout fails its own validation, the *snowflake.LayoutError it wraps.
type SpecError struct {
	// Field names the field, as in "Time", "Zone" or "Layout.Epoch".
	Field string
	// Problem says what is wrong with it and, where there is one, what to do instead.
	Problem string

	err error // the cause, for Unwrap
}

// Error implements error.
func (e *SpecError) Error() string {
	return "number: invalid spec: " + e.Field + " " + e.Problem
}

// Is reports whether target is ErrInvalidSpec.
func (e *SpecError) Is(target error) bool { return target == ErrInvalidSpec }

// Unwrap returns the error that caused this one, if any.
func (e *SpecError) Unwrap() error { return e.err }

// ParseError reports a string that is not a number of the Format that parsed it. It
// matches ErrInvalid.
type ParseError struct {
	// Input is the string given to Parse.
	Input string
	// Reason names the part that is wrong: "length", "prefix", "time", "unique part" or
	// "check digit". A time that is well formed but, with its unique part, falls outside
	// the layout's lifetime is a "time" error too.
	Reason string

	detail string // what exactly is wrong with the part, for Error
}

// maxQuoted bounds how much of the input an error message repeats.
const maxQuoted = 64

// Error implements error.
func (e *ParseError) Error() string {
	in := e.Input
	if len(in) > maxQuoted {
		in = in[:maxQuoted] + "..."
	}
	msg := "number: parse " + strconv.Quote(in) + ": bad " + e.Reason
	if e.detail != "" {
		msg += ": " + e.detail
	}
	return msg
}

// Is reports whether target is ErrInvalid.
func (e *ParseError) Is(target error) bool { return target == ErrInvalid }
