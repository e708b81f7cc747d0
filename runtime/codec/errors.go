package codec

import (
	"errors"
	"fmt"
)

// ErrInvalid is matched by every *ParseError.
var ErrInvalid = errors.New("codec: invalid ID")

// ParseError reports input that is not an ID of a type: the type, the input (cut to 64
// bytes) and what is wrong. It matches ErrInvalid.
type ParseError struct {
	Type   string
	Input  string
	Reason string
	Err    error // the underlying cause, if any
}

// Error implements error.
func (e *ParseError) Error() string {
	return fmt.Sprintf("codec: parse %s %q: %s", e.Type, e.Input, e.Reason)
}

// Is reports whether target is ErrInvalid.
func (e *ParseError) Is(target error) bool { return target == ErrInvalid }

// Unwrap returns the underlying cause.
func (e *ParseError) Unwrap() error { return e.Err }

// Errorf returns a *ParseError for typ and input whose reason is formatted from format and
// args; an error among args that %w names becomes its Err.
func Errorf(typ, input, format string, args ...any) *ParseError {
	if len(input) > 64 {
		input = input[:64] + "..."
	}
	w := fmt.Errorf(format, args...)
	return &ParseError{Type: typ, Input: input, Reason: w.Error(), Err: errors.Unwrap(w)}
}
