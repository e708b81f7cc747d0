//go:build unix

package idjetstream_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/idgen/idgen/integration/internal/consumetest"
)

// TestOutage: the database stopped for 10 s (pg_ctl stop -m immediate: every session cut,
// commits in flight lost or unanswered) while 3 consumer processes with the README's
// settings (AckWait 30 s, MaxDeliver 5, Prefetch 64, Concurrency 8) consume 20,000
// messages: no message is terminated, every message has exactly one effect row, and
// consumption resumes within 2 s of the database answering again; a poison message among
// them, whose third delivery meets the outage, is still dead-lettered and terminated at
// its 5th delivery (the outage counted none). The database is a
// PostgreSQL of the test's own, run once (not per database kind).
func TestOutage(t *testing.T) {
	url := natsURL(t)
	const (
		messages  = 20000
		consumers = 3
		outage    = 10 * time.Second
		poison    = "poison"
	)
	pg := consumetest.StartPostgres(t)
	s := pg.Store(t)
	s.StampEffects(t)
	_, js := connect(t, url)
	str, subject := stream(t, js, "outage", jetstream.StreamConfig{})
	deadSubject, readDead := deadLetters(t, js)
	ctx := context.Background()
	cons, err := str.CreateOrUpdateConsumer(ctx, consumerConfig("workers", 30*time.Second, 5))
	if err != nil {
		t.Fatal(err)
	}
	specJSON, err := json.Marshal(childSpec{URL: url, Stream: str.CachedInfo().Config.Name, Consumer: "workers",
		Store: *s, Prefetch: 64, Conc: 8, Poison: poison, DeadLetterSubject: deadSubject})
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
	type pubResult struct {
		dropped int
		err     error
	}
	pubDone := make(chan pubResult, 1)
	go func() {
		dropped, err := publish(url, subject, all, 1)
		pubDone <- pubResult{dropped, err}
	}()
	published := false
	pubCheck := func() error {
		select {
		case r := <-pubDone:
			if r.err != nil {
				return r.err
			}
			published = true
		default:
		}
		return nil
	}

	// The database goes down once the poison message has failed twice: its third
	// delivery meets the outage, which must not count.
	o := pg.Outage(t, s, func() (bool, error) {
		failed, _ := consumetest.Attempts(procs, poison)
		return len(failed) >= 2, pubCheck()
	}, outage)
	counts := consumetest.Sum(procs)
	t.Logf("the database was down from %d effect rows for %v; meanwhile the consumers counted %d paused tries, %d terminated",
		o.Before, o.Restart.Sub(o.Down).Round(time.Millisecond), counts.Paused, counts.DeadLettered)

	drained := func() bool {
		info, err := cons.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return info.NumPending == 0 && info.NumAckPending == 0
	}
	deadline := time.Now().Add(5 * time.Minute)
	for {
		if err := pubCheck(); err != nil {
			t.Fatal(err)
		}
		rows, _ := s.Effects(t)
		// Every message accounted for: acknowledged (after its effect) or terminated.
		if published && drained() && len(readDead()) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not drained 5 minutes after the outage: %d of %d effect rows, %d dead letters", rows, messages, len(readDead()))
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
	dead := readDead()
	var deadKeys []string
	for _, m := range dead {
		deadKeys = append(deadKeys, m.Header.Get("Idgen-Dead-Msg-Id"))
	}
	if len(deadKeys) > 10 {
		deadKeys = append(deadKeys[:10], "...")
	}
	t.Logf("%d messages and a poison one, %d consumer processes, database down %v (from %d rows): %d effect rows, %d keys, "+
		"%d missing, %d duplicate, %d terminated (%q); resumed %v after the database answered again "+
		"(gap between the last row before and the first after: %v; restart to first row: %v); "+
		"the consumers counted %d processed, %d duplicates, %d failed, %d paused tries, %d terminated, %d redelivered",
		messages, consumers, o.Restart.Sub(o.Down).Round(time.Millisecond), o.Before, rows, keys, missing, rows-keys, len(dead), deadKeys,
		o.Resumed().Round(time.Millisecond), o.FirstAfter.Sub(o.LastBefore).Round(time.Millisecond), o.FirstAfter.Sub(o.Restart).Round(time.Millisecond),
		total.Processed, total.Duplicate, total.Failed, total.Paused, total.DeadLettered, total.Redelivered)
	if rows != messages || keys != messages || missing != 0 || have[poison] {
		t.Errorf("effects: %d rows of %d keys, %d missing, poison's: %v; want exactly %d rows, one per message, none of the poison one",
			rows, keys, missing, have[poison], messages)
	}
	if len(dead) != 1 || deadKeys[0] != poison || total.DeadLettered != 1 {
		t.Errorf("%d terminated (%q; the consumers counted %d); want the poison message alone", len(dead), deadKeys, total.DeadLettered)
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
}
