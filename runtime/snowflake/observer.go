package snowflake

import (
	"context"
	"log/slog"
	"time"
)

// Observer receives a Generator's events, for metrics or logs. Its methods are called on the
// goroutine that calls the generator and must be fast and safe for concurrent use. Issued
// is called on every Next; the others only on the slow path.
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
