package snowflake

import "fmt"

// RollbackPolicy says what a Generator does when its clock reads a time behind IDs it has
// already issued: after a restart on a host whose clock went back, when it takes over a
// worker ID whose previous holder issued later IDs (Options.After), or with a clock that can
// go back. No policy issues a duplicate.
type RollbackPolicy uint8

const (
	// RollbackWait parks the caller until the clock is back where it was, if that takes at
	// most Options.MaxWait; a larger rollback is a *ClockBehindError.
	RollbackWait RollbackPolicy = iota
	// RollbackFail returns a *ClockBehindError saying by how much, at once.
	RollbackFail
	// RollbackLogical keeps issuing from where the generator was, stamping IDs ahead of the
	// clock by at most Options.MaxDrift; beyond that it waits up to Options.MaxWait for the
	// clock, then fails with a *ClockBehindError. It also lets exhausted ticks borrow the
	// next ones within the same drift.
	RollbackLogical
)

// String returns the policy's name.
func (p RollbackPolicy) String() string {
	switch p {
	case RollbackWait:
		return "wait"
	case RollbackFail:
		return "fail"
	case RollbackLogical:
		return "logical"
	}
	return fmt.Sprintf("RollbackPolicy(%d)", uint8(p))
}

// ExhaustPolicy says what a Generator does when the sequence of the current tick is used up.
type ExhaustPolicy uint8

const (
	// ExhaustWait parks the caller until the next tick: it sleeps, it does not spin.
	ExhaustWait ExhaustPolicy = iota
	// ExhaustBorrow moves on to the next tick at once, stamping IDs ahead of the clock by at
	// most Options.MaxDrift; at that bound it waits like ExhaustWait.
	ExhaustBorrow
)

// String returns the policy's name.
func (p ExhaustPolicy) String() string {
	switch p {
	case ExhaustWait:
		return "wait"
	case ExhaustBorrow:
		return "borrow"
	}
	return fmt.Sprintf("ExhaustPolicy(%d)", uint8(p))
}
