package worker

import (
	"errors"
	"fmt"
	"strconv"
)

// ErrNotSet is wrapped by the error [Env] returns when its environment variable is unset or
// empty.
var ErrNotSet = errors.New("worker: environment variable not set")

// notSetError names the variable that [ErrNotSet] is about.
type notSetError struct {
	name  string
	empty bool
}

func (e *notSetError) Error() string {
	if e.empty {
		return "worker: environment variable " + e.name + " is empty"
	}
	return "worker: environment variable " + e.name + " is not set"
}

func (e *notSetError) Unwrap() error { return ErrNotSet }

// RangeError reports a worker ID outside [0, Max]. A negative Max leaves no ID in range and
// is reported the same way, once the ID has been read.
type RangeError struct {
	ID     int64
	Max    int64
	Source string // where ID came from: "static", the variable name, or `hostname "web-7"`
}

// Error implements error.
func (e *RangeError) Error() string {
	if e.Max < 0 {
		return fmt.Sprintf("worker: worker ID %d from %s out of range: max %d is negative", e.ID, e.Source, e.Max)
	}
	return fmt.Sprintf("worker: worker ID %d from %s out of range [0, %d]", e.ID, e.Source, e.Max)
}

// ParseError reports a value that is not a plain decimal worker ID.
type ParseError struct {
	Source string // the variable name, or "hostname"
	Value  string // the text read from Source
	Err    error  // wraps strconv.ErrSyntax or strconv.ErrRange
}

// Error implements error.
func (e *ParseError) Error() string {
	return fmt.Sprintf("worker: cannot parse worker ID from %s %q: %v", e.Source, e.Value, e.Err)
}

// Unwrap returns e.Err.
func (e *ParseError) Unwrap() error { return e.Err }

// The causes wrap strconv's sentinels so callers who already match those keep working.
var (
	errNotDecimal = fmt.Errorf("not a plain decimal number: %w", strconv.ErrSyntax)
	errNoOrdinal  = fmt.Errorf("no decimal ordinal after the last '-': %w", strconv.ErrSyntax)
	errOverflow   = fmt.Errorf("overflows int64: %w", strconv.ErrRange)
)
