package snowflake

import (
	"context"
	"log/slog"
	"time"
)

// Observer receives a Generator's events, for metrics or logs. Its methods are called on the
// goroutine that calls the generator and must be fast and safe for concurrent use. Issued
// is called on every Next, unless the Observer is an IssuedCounter; the others only on the
// slow path.
type Observer interface {
	// Issued reports that n IDs were handed out.
	Issued(n int)
	// Waited reports that a caller parked for d until the clock reached the tick it needed.
	Waited(d time.Duration)
	// RollbackSeen reports a clock found behind the last issued time, and by how much.
	RollbackSeen(behind time.Duration)
	// Drift reports how far ahead of the clock IDs are now stamped (borrowed ticks or a
	// logical clock); zero once the clock has caught up.
	Drift(ahead time.Duration)
}

// IssuedCounter is an Observer that reads how many IDs a generator issued when it needs the
// number, instead of hearing of each ID: New calls CountIssued once with the generator's
// Issued method, and the generator then never calls the Observer's Issued. That spares an
// interface call and an atomic add per ID, most of what a metrics Observer costs, and the
// contention of one counter shared by every caller.
type IssuedCounter interface {
	Observer
	// CountIssued hands over the generator's Issued method: how many IDs it has issued.
	CountIssued(issued func() uint64)
}

// LogObserver returns an Observer that logs to l: rollbacks as warnings, drift as info and
// waits as debug messages. It does not log Issued.
func LogObserver(l *slog.Logger) Observer { return logObserver{l} }

type logObserver struct{ l *slog.Logger }

func (logObserver) Issued(int) {}

func (o logObserver) Waited(d time.Duration) {
	o.l.LogAttrs(context.Background(), slog.LevelDebug, "snowflake: waited for the clock", slog.Duration("wait", d))
}

func (o logObserver) RollbackSeen(behind time.Duration) {
	o.l.LogAttrs(context.Background(), slog.LevelWarn, "snowflake: clock behind the last issued time", slog.Duration("behind", behind))
}

func (o logObserver) Drift(ahead time.Duration) {
	o.l.LogAttrs(context.Background(), slog.LevelInfo, "snowflake: issuing ahead of the clock", slog.Duration("drift", ahead))
}
