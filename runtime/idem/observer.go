package idem

import "time"

// Outcome is what the middleware did with a request that carried a key.
type Outcome uint8

const (
	// Ran: the key was claimed and the handler ran; its response was stored.
	Ran Outcome = iota + 1
	// Released: the handler ran and the key was given back (a 5xx, a panic, or Release).
	Released
	// Replayed: a completed key's response was sent again.
	Replayed
	// InFlight: the key was held by a request still running (409 after any Wait).
	InFlight
	// Mismatch: the key was used for another request (422).
	Mismatch
	// Refused: the request was refused before any claim (bad key, caller not identified,
	// body unreadable, too large, or refused by FingerprintBody).
	Refused
	// StoreFailed: the store failed (503).
	StoreFailed
	// ClaimLost: the claim was lost while the handler ran (taken by another request, or
	// renewals failed and the outcome could not be stored with the claim's token); nothing
	// was stored. Work whose renewals failed but whose outcome was stored is Ran or
	// Released.
	ClaimLost
)

// String returns the outcome's name, in snake case, for metric attributes and logs.
func (o Outcome) String() string {
	switch o {
	case Ran:
		return "ran"
	case Released:
		return "released"
	case Replayed:
		return "replayed"
	case InFlight:
		return "in_flight"
	case Mismatch:
		return "mismatch"
	case Refused:
		return "refused"
	case StoreFailed:
		return "store_failed"
	case ClaimLost:
		return "claim_lost"
	}
	return "unknown"
}

// Observer hears what the middleware did with each request that carried a key, and how
// long the middleware and handler took; Config.Observer sets it. Served is called once per
// such request, after the response was written, from the request's goroutine; it must be
// fast and safe for concurrent use. Requests without a key, or with a method the
// middleware passes through, are not reported.
type Observer interface {
	Served(o Outcome, d time.Duration)
}
