package segment

import (
	"errors"
	"fmt"
)

var (
	// ErrUnavailable is matched by every *UnavailableError.
	ErrUnavailable = errors.New("segment: store unavailable")
	// ErrInvalidOptions is matched by the error of New for a missing store or tag or
	// inconsistent Options.
	ErrInvalidOptions = errors.New("segment: invalid options")
	// ErrTagExists is matched by the error of a store's Create for a tag it has already.
	ErrTagExists = errors.New("segment: tag exists")
	// ErrBelowFloor is matched by every *FloorError.
	ErrBelowFloor = errors.New("segment: block not above the floor")
)

// FloorError reports a block that does not start above Options.Floor, the highest ID
// already issued for the tag: serving it would repeat IDs. It matches ErrBelowFloor, and
// its message names the value of the tag's counter that starts above the floor
// (MinCounter), which depends on what the store's counter means (CounterIsNext).
type FloorError struct {
	// Tag is the allocator's business tag.
	Tag string
	// Floor is the highest ID already issued.
	Floor int64
	// Block is the block the store returned.
	Block Range
	// CounterIsNext says the store's counter (max_id) is the next ID it hands out, as
	// Leaf's leaf_alloc keeps it (the store is a NextCounter), not the last one handed out,
	// as idgen's own table and tinyid's keep it.
	CounterIsNext bool
}

// MinCounter returns the lowest value of the tag's counter (max_id) from which the
// store's blocks start above Floor: Floor+1 where the counter is the next ID handed out
// (CounterIsNext: Leaf's max_id must be above the floor), Floor where it is the last one
// (idgen's table, tinyid's: the next block starts at max_id+1).
func (e *FloorError) MinCounter() int64 {
	if e.CounterIsNext {
		return e.Floor + 1
	}
	return e.Floor
}

// Error implements error.
func (e *FloorError) Error() string {
	head := fmt.Sprintf("segment: tag %q: the store's block [%d, %d] does not start above the floor %d (the highest ID already issued): ",
		e.Tag, e.Block.First, e.Block.Last, e.Floor)
	if e.CounterIsNext {
		return head + fmt.Sprintf("move the tag's counter (max_id, the next ID the table hands out) up to at least %d, never down, or correct the floor",
			e.MinCounter())
	}
	return head + fmt.Sprintf("move the tag's counter (max_id, the last ID the table handed out) up to at least %d, never down, or correct the floor",
		e.MinCounter())
}

// Is reports whether target is ErrBelowFloor.
func (e *FloorError) Is(target error) bool { return target == ErrBelowFloor }

// UnavailableError is returned by an Allocator whose buffered IDs have run out while the
// store cannot reserve a block. It matches ErrUnavailable and wraps the store's error.
type UnavailableError struct {
	// Tag is the allocator's business tag.
	Tag string
	// Err is the error of the latest failed reservation.
	Err error
}

// Error implements error.
func (e *UnavailableError) Error() string {
	return fmt.Sprintf("segment: tag %q: no IDs buffered and the store is unavailable: %v", e.Tag, e.Err)
}

// Is reports whether target is ErrUnavailable.
func (e *UnavailableError) Is(target error) bool { return target == ErrUnavailable }

// Unwrap returns e.Err.
func (e *UnavailableError) Unwrap() error { return e.Err }
