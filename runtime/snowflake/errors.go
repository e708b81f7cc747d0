package snowflake

import (
	"errors"
	"fmt"
	"time"
)

var (
	// ErrInvalidLayout is matched by every *LayoutError.
	ErrInvalidLayout = errors.New("snowflake: invalid layout")
	// ErrOutOfRange is wrapped when a worker, tick or sequence does not fit its field.
	ErrOutOfRange = errors.New("snowflake: out of range")
	// ErrInvalidID is wrapped when a value cannot be an ID of the layout.
	ErrInvalidID = errors.New("snowflake: invalid ID")
	// ErrClockBehind is matched by every *ClockBehindError.
	ErrClockBehind = errors.New("snowflake: clock behind")
	// ErrLifetimeOver is wrapped when the layout's time field cannot count any further.
	ErrLifetimeOver = errors.New("snowflake: layout lifetime is over")
	// ErrBeforeEpoch is wrapped when the clock reads a time before the layout's epoch.
	ErrBeforeEpoch = errors.New("snowflake: clock before epoch")
)

// LayoutError says which field of a Layout is wrong and why. It matches ErrInvalidLayout.
type LayoutError struct {
	Field   string
	Problem string
}

// Error implements error.
func (e *LayoutError) Error() string {
	return "snowflake: invalid layout: " + e.Field + " " + e.Problem
}

// Is reports whether target is ErrInvalidLayout.
func (e *LayoutError) Is(target error) bool { return target == ErrInvalidLayout }

// ClockBehindError reports a clock found behind the time of IDs already issued, by how much,
// and the bound of the policy that refused to wait it out. It matches ErrClockBehind.
type ClockBehindError struct {
	// Behind is how far the clock is behind the last issued time.
	Behind time.Duration
	// Policy is the rollback policy in force.
	Policy RollbackPolicy
	// Limit is the bound that was exceeded: MaxWait for RollbackWait, MaxDrift plus MaxWait
	// for RollbackLogical, zero for RollbackFail.
	Limit time.Duration
}

// Error implements error.
func (e *ClockBehindError) Error() string {
	switch e.Policy {
	case RollbackFail:
		return fmt.Sprintf("snowflake: clock is %v behind the last issued time (policy %v)", e.Behind, e.Policy)
	case RollbackLogical:
		return fmt.Sprintf("snowflake: clock is %v behind the last issued time, more than the drift and wait bounds allow (%v)", e.Behind, e.Limit)
	}
	return fmt.Sprintf("snowflake: clock is %v behind the last issued time, more than the %v wait bound", e.Behind, e.Limit)
}

// Is reports whether target is ErrClockBehind.
func (e *ClockBehindError) Is(target error) bool { return target == ErrClockBehind }
