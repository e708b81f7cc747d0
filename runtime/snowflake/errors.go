package snowflake

import (
	"errors"
	"fmt"
	"strings"
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

// ErrBelowFloor is matched by every *FloorError.
var ErrBelowFloor = errors.New("snowflake: next ID not above the floor")

// FloorError reports a layout whose IDs would not stay above the floor, the highest ID
// already issued by the system being continued: the clock's tick under it is behind the
// floor's time field, so its IDs would go backwards, and some could repeat. It matches
// ErrBelowFloor.
type FloorError struct {
	// Floor is the highest ID already issued.
	Floor ID
	// Layout is the layout refused.
	Layout Layout
	// FloorTick is the floor's time field under Layout, NextTick the clock's tick (at
	// Now), behind it.
	FloorTick, NextTick int64
	// Now is the clock's reading.
	Now time.Time
	// Continue names the presets whose next ID is above the floor.
	Continue []string
}

// Error implements error.
func (e *FloorError) Error() string {
	var b strings.Builder
	l := e.Layout
	fmt.Fprintf(&b, "snowflake: floor %d (the highest ID already issued) is not below the next ID of layout %s (%v): ", int64(e.Floor), l.Spec(), l)
	w := l.width()
	if w < 63 && int64(e.Floor) >= 1<<w {
		fmt.Fprintf(&b, "the floor is wider than the layout's %d bits", w)
	} else {
		fmt.Fprintf(&b, "the floor's time field is tick %d (%s), the clock's is tick %d (%s); ",
			e.FloorTick, l.TimeOf(e.FloorTick).UTC().Format(time.RFC3339Nano), e.NextTick, e.Now.UTC().Format(time.RFC3339Nano))
		if e.FloorTick <= l.MaxTick() {
			latest := e.Now.Add(-time.Duration(e.FloorTick) * l.Unit)
			fmt.Fprintf(&b, "set the epoch at or before %s (Unix ms %d) to keep %v ticks, ", latest.UTC().Format(time.RFC3339Nano), latest.UnixMilli(), l.Unit)
		}
	}
	if len(e.Continue) > 0 {
		fmt.Fprintf(&b, "or use the layout that issued the floor; presets that continue above it: %s", strings.Join(e.Continue, ", "))
	} else {
		b.WriteString("or use the layout that issued the floor (no preset continues above it)")
	}
	return b.String()
}

// Is reports whether target is ErrBelowFloor.
func (e *FloorError) Is(target error) bool { return target == ErrBelowFloor }
