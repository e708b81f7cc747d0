package codec

import (
	"errors"
	"fmt"
	"strconv"
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

// ValueError reports a value of an ID type that no reader accepts, met by a writer
// (AppendText, MarshalText, MarshalJSON, Value): a negative snowflake ID, or a business
// number made by a conversion from text that is not one. Writers refuse what readers
// refuse, so an invalid ID fails where it is made, not in the service that reads it. It
// matches ErrInvalid.
type ValueError struct {
	Type   string
	Value  string // the value, as Go would write a literal of it (cut to 64 bytes)
	Reason string
	Err    error // the underlying cause, if any
}

// Error implements error.
func (e *ValueError) Error() string {
	return fmt.Sprintf("codec: write %s %s: %s", e.Type, e.Value, e.Reason)
}

// Is reports whether target is ErrInvalid.
func (e *ValueError) Is(target error) bool { return target == ErrInvalid }

// Unwrap returns the underlying cause.
func (e *ValueError) Unwrap() error { return e.Err }

// InvalidInt64 returns a *ValueError for an int64 ID no reader accepts: a negative one.
func InvalidInt64(typ string, v int64) *ValueError {
	return &ValueError{Type: typ, Value: strconv.FormatInt(v, 10), Reason: "negative"}
}

// InvalidString returns a *ValueError for a string ID no reader accepts; err says why.
func InvalidString(typ, s string, err error) *ValueError {
	if len(s) > 64 {
		s = s[:64] + "..."
	}
	reason := "not valid"
	if err != nil {
		reason = err.Error()
		var pe *ParseError
		if errors.As(err, &pe) {
			reason = pe.Reason
		}
	}
	return &ValueError{Type: typ, Value: strconv.Quote(s), Reason: reason, Err: err}
}
