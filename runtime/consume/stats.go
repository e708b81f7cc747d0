package consume

import "sync/atomic"

// Outcome is what became of one delivery.
type Outcome uint8

const (
	// Processed: the Processor ran the effect, and it committed.
	Processed Outcome = iota + 1
	// Duplicate: the key was already done; nothing ran, the message was acknowledged.
	Duplicate
	// Failed: the Processor returned an error; the message is delivered again.
	Failed
	// DeadLettered: the message failed as often as allowed and was dead-lettered or
	// terminated; nothing of it is recorded as done (the ledger was asked: see OnceTx).
	DeadLettered
	// NoKey: the message had no key; it was routed as configured, never processed.
	NoKey
	// Paused: the try failed because the store was unavailable (Unavailable); the consumer
	// paused (Gate) and holds the message to try it again, and the attempt does not count.
	// One per failed try.
	Paused
)

// String returns the outcome's name, as metrics label it.
func (o Outcome) String() string {
	switch o {
	case Processed:
		return "processed"
	case Duplicate:
		return "duplicate"
	case Failed:
		return "failed"
	case DeadLettered:
		return "dead_lettered"
	case NoKey:
		return "no_key"
	case Paused:
		return "paused"
	}
	return "unknown"
}

// Observer hears every delivery's outcome, and whether the broker marked the delivery as
// a redelivery; adapters call it from their workers, concurrently. A metrics adapter
// implements it.
type Observer interface {
	Delivered(o Outcome, redelivered bool)
}

// Stats counts outcomes; it is an Observer, safe for concurrent use, and every adapter's
// Consumer keeps one. The zero value is ready.
type Stats struct {
	processed, duplicate, failed, deadLettered, noKey, paused, redelivered atomic.Int64
}

// Counts is a snapshot of Stats.
type Counts struct {
	Processed, Duplicate, Failed, DeadLettered, NoKey int64
	// Paused counts the tries that failed because the store was unavailable; they spend
	// no attempt.
	Paused int64
	// Redelivered counts deliveries the broker marked as redelivered, whatever their
	// outcome.
	Redelivered int64
}

// Delivered implements Observer.
func (s *Stats) Delivered(o Outcome, redelivered bool) {
	switch o {
	case Processed:
		s.processed.Add(1)
	case Duplicate:
		s.duplicate.Add(1)
	case Failed:
		s.failed.Add(1)
	case DeadLettered:
		s.deadLettered.Add(1)
	case NoKey:
		s.noKey.Add(1)
	case Paused:
		s.paused.Add(1)
	}
	if redelivered {
		s.redelivered.Add(1)
	}
}

// Counts returns the counts so far.
func (s *Stats) Counts() Counts {
	return Counts{
		Processed:    s.processed.Load(),
		Duplicate:    s.duplicate.Load(),
		Failed:       s.failed.Load(),
		DeadLettered: s.deadLettered.Load(),
		NoKey:        s.noKey.Load(),
		Paused:       s.paused.Load(),
		Redelivered:  s.redelivered.Load(),
	}
}
