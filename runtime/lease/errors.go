package lease

import (
	"errors"
	"fmt"
	"time"

	"github.com/idgen/idgen/runtime/snowflake"
)

var (
	// ErrNotHeld is matched by every *NotHeldError.
	ErrNotHeld = errors.New("lease: worker ID not held")
	// ErrAllTaken is matched by every *AllTakenError.
	ErrAllTaken = errors.New("lease: every worker ID is held")
	// ErrLost is matched by every *LostError.
	ErrLost = errors.New("lease: lease lost")
	// ErrClosed is the cause a *NotHeldError carries after Lease.Close.
	ErrClosed = errors.New("lease: closed")
)

// NotHeldError is returned by a Lease's Next methods while it holds no worker ID it may
// issue under: its last successful renewal is too old (the store may have let the lease
// expire), the store said it was lost and no other ID has been acquired yet, or the Lease
// was closed. It matches ErrNotHeld and snowflake.ErrGateClosed.
type NotHeldError struct {
	// Worker is the worker ID last held, or -1 if none was.
	Worker int64
	// Err is why: a *LostError, ErrClosed, or nil while a renewal is overdue.
	Err error
}

// Error implements error.
func (e *NotHeldError) Error() string {
	var s string
	if e.Worker < 0 {
		s = "lease: no worker ID held"
	} else {
		s = fmt.Sprintf("lease: worker ID %d not held", e.Worker)
	}
	if e.Err == nil {
		return s + ": renewal overdue"
	}
	return s + ": " + e.Err.Error()
}

// Is reports whether target is ErrNotHeld or snowflake.ErrGateClosed.
func (e *NotHeldError) Is(target error) bool {
	return target == ErrNotHeld || target == snowflake.ErrGateClosed
}

// Unwrap returns e.Err.
func (e *NotHeldError) Unwrap() error { return e.Err }

// AllTakenError reports that every worker ID in [Min, Max] is held by a live lease. It
// matches ErrAllTaken.
type AllTakenError struct {
	Min, Max int64
}

// Error implements error.
func (e *AllTakenError) Error() string {
	return fmt.Sprintf("lease: every worker ID in [%d, %d] is held", e.Min, e.Max)
}

// Is reports whether target is ErrAllTaken.
func (e *AllTakenError) Is(target error) bool { return target == ErrAllTaken }

// LostError reports that a holder's token no longer holds its worker ID: another holder
// claimed it, or it expired before the renewal reached the store. It matches ErrLost.
type LostError struct {
	Worker int64
	// Taken says another holder claimed the ID.
	Taken bool
	// Expired, when not zero, is when the lease expired in the store's clock (and nobody
	// has claimed the ID since).
	Expired time.Time
}

// Error implements error.
func (e *LostError) Error() string {
	switch {
	case e.Taken:
		return fmt.Sprintf("lease: worker ID %d lost: held by another holder", e.Worker)
	case !e.Expired.IsZero():
		return fmt.Sprintf("lease: worker ID %d lost: expired at %s", e.Worker, e.Expired.UTC().Format(time.RFC3339Nano))
	}
	return fmt.Sprintf("lease: worker ID %d lost: no lease recorded", e.Worker)
}

// Is reports whether target is ErrLost.
func (e *LostError) Is(target error) bool { return target == ErrLost }
