//go:build unix

package idrabbit_test

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/idgen/idgen/integration/internal/consumetest"
	"github.com/idgen/idgen/plugins/idrabbit"
)

// TestOutage: the database stopped for 10 s (pg_ctl stop -m immediate: every session cut,
// commits in flight lost or unanswered) while 3 consumer processes with the README's
// settings (MaxAttempts 5, Prefetch 64, Concurrency 8) consume 20,000 messages: no
// message is dead-lettered, every message has exactly one effect row, and consumption
// resumes within 2 s of the database answering again; a poison message among them, whose
// third try meets the outage, is still dead-lettered after exactly 5 attempts (the try that
// met the outage did not count). The database is a PostgreSQL of the test's own,
// run once (not per database kind).
func TestOutage(t *testing.T) {
	url := amqpURL(t)
	const (
		messages  = 20000
		consumers = 3
		outage    = 10 * time.Second
		poison    = "poison"
	)
	pg := consumetest.StartPostgres(t)
	s := pg.Store(t)
	s.StampEffects(t)
	conn := dial(t, url)
	q := queueName(t, url, "outage")
	if _, _, err := idrabbit.DeclareQueue(channel(t, conn), q, idrabbit.QueueOptions{}); err != nil {
		t.Fatal(err)
	}
	specJSON, err := json.Marshal(childSpec{URL: url, Queue: q, Store: *s, Prefetch: 64, Conc: 8, MaxAttempts: 5, Poison: poison})
	if err != nil {
		t.Fatal(err)
	}
	env := specEnv + "=" + string(specJSON)
	procs := make([]*consumetest.Process, consumers)
	for i := range procs {
		procs[i] = consumetest.Start(t, env)
	}
	// The poison message a quarter of the way in.
	all := keys(messages)
	all = slices.Insert(all, messages/4, poison)
	pubErr := make(chan error, 1)
	go func() { pubErr <- publish(url, q, all, 1) }()
	published := func() error {
		select {
		case err := <-pubErr:
			if err != nil {
				return err
			}
			pubErr = nil
		default:
		}
		return nil
	}

	// The database goes down once the poison message has failed twice: its third try
	// meets the outage, which must not count.
	o := pg.Outage(t, s, func() (bool, error) {
		failed, _ := consumetest.Attempts(procs, poison)
		return len(failed) >= 2, published()
	}, outage)
	counts := consumetest.Sum(procs)
	t.Logf("the database was down from %d effect rows for %v; meanwhile the consumers counted %d paused tries, %d dead-lettered",
		o.Before, o.Restart.Sub(o.Down).Round(time.Millisecond), counts.Paused, counts.DeadLettered)

	deadline := time.Now().Add(5 * time.Minute)
	for {
		if err := published(); err != nil {
			t.Fatal(err)
		}
		rows, _ := s.Effects(t)
		// Every message accounted for: an effect row, or a dead letter.
		if pubErr == nil && queueLen(t, conn, q) == 0 && rows+queueLen(t, conn, q+".dead") >= messages+1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not drained 5 minutes after the outage: %d of %d effect rows, %d ready, %d dead-lettered",
				rows, messages, queueLen(t, conn, q), queueLen(t, conn, q+".dead"))
		}
		time.Sleep(20 * time.Millisecond)
	}
	o.Resume(t, s)
	for _, proc := range procs {
		if err := proc.Stop(); err != nil {
			t.Error(err)
		}
	}
	total := consumetest.Sum(procs)
	if lines := consumetest.Unexpected(procs, poison); len(lines) > 0 {
		t.Logf("%d errors other than paused tries and the poison message's, the first: %q", len(lines), lines[:min(len(lines), 10)])
	}
	rows, keys := s.Effects(t)
	have, missing := s.Keys(t), 0
	for i := range messages {
		if !have[key(i)] {
			missing++
		}
	}
	dead := queueLen(t, conn, q+".dead")
	var poisonDead string
	if dead == 1 {
		poisonDead = deadLetter(t, conn, q).MessageId
	}
	t.Logf("%d messages and a poison one, %d consumer processes, database down %v (from %d rows): %d effect rows, %d keys, "+
		"%d missing, %d duplicate, %d dead-lettered (%q); resumed %v after the database answered again "+
		"(gap between the last row before and the first after: %v; restart to first row: %v); "+
		"the consumers counted %d processed, %d duplicates, %d failed, %d paused tries, %d dead-lettered, %d redelivered",
		messages, consumers, o.Restart.Sub(o.Down).Round(time.Millisecond), o.Before, rows, keys, missing, rows-keys, dead, poisonDead,
		o.Resumed().Round(time.Millisecond), o.FirstAfter.Sub(o.LastBefore).Round(time.Millisecond), o.FirstAfter.Sub(o.Restart).Round(time.Millisecond),
		total.Processed, total.Duplicate, total.Failed, total.Paused, total.DeadLettered, total.Redelivered)
	if rows != messages || keys != messages || missing != 0 || have[poison] {
		t.Errorf("effects: %d rows of %d keys, %d missing, poison's: %v; want exactly %d rows, one per message, none of the poison one",
			rows, keys, missing, have[poison], messages)
	}
	if dead != 1 || poisonDead != poison || total.DeadLettered != 1 {
		t.Errorf("%d dead-lettered (%q; the consumers counted %d); want the poison message alone", dead, poisonDead, total.DeadLettered)
	}
	if failed, last := consumetest.Attempts(procs, poison); !slices.Equal(slices.Sorted(slices.Values(failed)), []int{1, 2, 3, 4}) || last != 5 {
		t.Errorf("the poison message failed at attempts %v and was given up at %d; want 1 to 4, then 5", failed, last)
	}
	if total.Paused == 0 {
		t.Error("no try counted as paused: the outage was not met")
	}
	if r := o.Resumed(); r > 2*time.Second {
		t.Errorf("consumption resumed %v after the database answered again, want within 2 s", r)
	}
	if n := queueLen(t, conn, q); n != 0 {
		t.Errorf("%d messages left in the queue", n)
	}
}
