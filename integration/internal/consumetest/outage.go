package consumetest

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// Outage is when a database stopped and started again under running consumers, and what
// its effect table said around it; see (*Postgres).Outage.
type Outage struct {
	// Down is when the server was stopped, Restart when it was started again (crash
	// recovery follows), Up when it first answered a new connection after that.
	Down, Restart, Up time.Time
	// Before is the effect rows written before it was stopped.
	Before int
	// LastBefore is the time of the last effect row written before Down, FirstAfter of the
	// first written after it (once the server was back): the gap between them is the
	// consumers' pause, and FirstAfter-Up how soon they resumed.
	LastBefore, FirstAfter time.Time
}

// Resumed is how long after the server answered again the first effect row was written
// (0 if a consumer wrote one before the test's own connection was answered).
func (o Outage) Resumed() time.Duration { return max(0, o.FirstAfter.Sub(o.Up)) }

// StampEffects adds to the effect table the time each row is written (at, the server's
// clock_timestamp()), which Outage reads.
func (s *Store) StampEffects(t testing.TB) {
	t.Helper()
	if _, err := s.DB.Exec("ALTER TABLE effects ADD COLUMN at timestamptz NOT NULL DEFAULT clock_timestamp()"); err != nil {
		t.Fatal(err)
	}
}

// Outage waits until start reports true (a non-nil error fails the test), stops the
// server as a crash would, keeps it down for length, starts it again and returns when it
// happened, with the effect table of s (stamped, StampEffects) read. Call Resume after the
// consumers wrote again, to fill in FirstAfter.
func (p *Postgres) Outage(t testing.TB, s *Store, start func() (bool, error), length time.Duration) Outage {
	t.Helper()
	deadline := time.Now().Add(5 * time.Minute)
	for {
		ok, err := start()
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("consumetest: the outage did not start within 5 minutes")
		}
		time.Sleep(5 * time.Millisecond)
	}
	var o Outage
	o.Down = time.Now()
	p.Stop()
	// The outage itself: a fixed length, not a wait for an event.
	time.Sleep(length - time.Since(o.Down))
	o.Restart = time.Now()
	p.Start()
	o.Up = p.up
	// Rows stamped after Down and before Restart were written as the server was being
	// stopped: they belong before.
	if err := s.DB.QueryRow("SELECT count(*), max(at) FROM effects WHERE at < $1", o.Restart).Scan(&o.Before, &o.LastBefore); err != nil {
		t.Fatal(err)
	}
	return o
}

// Resume fills in o.FirstAfter, once rows were written after the server came back.
func (o *Outage) Resume(t testing.TB, s *Store) {
	t.Helper()
	var first *time.Time
	if err := s.DB.QueryRow("SELECT min(at) FROM effects WHERE at > $1", o.Restart).Scan(&first); err != nil {
		t.Fatal(err)
	}
	if first == nil {
		t.Fatal("consumetest: no effect row written since the database came back")
	}
	o.FirstAfter = *first
}

// Unexpected returns the lines the processes wrote on standard error that are neither
// about a paused try (the store's failure) nor about the message with key skip: errors
// that counted toward a good message's attempts, or others.
func Unexpected(ps []*Process, skip string) []string {
	var out []string
	for _, p := range ps {
		for line := range strings.Lines(p.Stderr()) {
			if strings.Contains(line, "paused") || strings.Contains(line, strconv.Quote(skip)) {
				continue
			}
			out = append(out, strings.TrimSpace(line))
		}
	}
	return out
}

// Attempts returns the attempts at which the processes reported that the message with
// key failed (the adapters' FailedError: `message "key" failed on attempt N`), in the
// order written, and the attempt at which they reported giving it up (dead-lettered or
// terminated), 0 if none.
func Attempts(ps []*Process, key string) (failed []int, last int) {
	marker := "message " + strconv.Quote(key) + " failed on attempt "
	for _, p := range ps {
		for line := range strings.Lines(p.Stderr()) {
			_, rest, ok := strings.Cut(line, marker)
			if !ok || strings.Contains(line, "paused") {
				continue
			}
			n, tail, _ := strings.Cut(rest, ",")
			a, err := strconv.Atoi(n)
			if err != nil {
				continue
			}
			if strings.HasPrefix(strings.TrimSpace(tail), "dead-lettered") || strings.HasPrefix(strings.TrimSpace(tail), "terminated") {
				last = a
				continue
			}
			failed = append(failed, a)
		}
	}
	return failed, last
}
