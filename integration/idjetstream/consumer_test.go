package idjetstream_test

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/idgen/idgen/integration/internal/consumetest"
	"github.com/idgen/idgen/plugins/idjetstream"
	"github.com/idgen/idgen/runtime/consume"
)

// run starts c.Run and, when the test ends, stops it and checks that it returned nil.
func run(t *testing.T, c *idjetstream.Consumer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
}

// waitFor polls cond every 10 ms until it holds, failing the test after a minute.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// deadLetters creates a stream on a subject of its own for dead letters and returns the
// subject and a function that reads what it holds.
func deadLetters(t *testing.T, js jetstream.JetStream) (subject string, read func() []*jetstream.RawStreamMsg) {
	t.Helper()
	s, subject := stream(t, js, "dead", jetstream.StreamConfig{})
	return subject, func() []*jetstream.RawStreamMsg {
		ctx := context.Background()
		info, err := s.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var msgs []*jetstream.RawStreamMsg
		for seq := info.State.FirstSeq; seq <= info.State.LastSeq && info.State.Msgs > 0; seq++ {
			m, err := s.GetMsg(ctx, seq)
			if err != nil {
				t.Fatal(err)
			}
			msgs = append(msgs, m)
		}
		return msgs
	}
}

// TestPoison: a message whose processing fails every time is redelivered twice and, at its
// third delivery (MaxDeliver 3), published to the dead-letter subject and terminated;
// nothing of it is recorded as done. A good message beside it is processed once.
func TestPoison(t *testing.T) {
	url := natsURL(t)
	for _, kind := range consumetest.Kinds() {
		t.Run(kind.Name, func(t *testing.T) {
			s := kind.Open(t, "jetstream_poison_"+kind.Name)
			_, js := connect(t, url)
			str, subject := stream(t, js, "poison", jetstream.StreamConfig{})
			ctx := context.Background()
			cons, err := str.CreateOrUpdateConsumer(ctx, consumerConfig("poison", 2*time.Minute, 3))
			if err != nil {
				t.Fatal(err)
			}
			deadSubject, readDead := deadLetters(t, js)
			var mu sync.Mutex
			attempts := map[string][]int{}
			boom := errors.New("boom")
			insert := s.Insert()
			proc := consume.OnceTx(s.DB, s.Ledger, func(ctx context.Context, tx *sql.Tx, d idjetstream.Delivery) error {
				mu.Lock()
				attempts[d.Key] = append(attempts[d.Key], d.Attempt)
				mu.Unlock()
				if _, err := tx.ExecContext(ctx, insert, d.Key, 0); err != nil {
					return err
				}
				if d.Key == "poison" {
					return boom // after its effect: the rollback must undo it
				}
				return nil
			})
			var failures atomic.Int64
			c, err := idjetstream.NewConsumer(js, cons, proc, idjetstream.Options{DeadLetterSubject: deadSubject,
				OnError: func(d idjetstream.Delivery, err error) {
					var fe *idjetstream.FailedError
					if !errors.As(err, &fe) || !errors.Is(err, boom) {
						t.Errorf("OnError: %v, want a *FailedError wrapping boom", err)
					}
					failures.Add(1)
				}})
			if err != nil {
				t.Fatal(err)
			}
			for _, key := range []string{"poison", "good"} {
				if _, err := idjetstream.Publish(ctx, js, subject, key, []byte(key)); err != nil {
					t.Fatal(err)
				}
			}
			run(t, c)
			waitFor(t, "the poison message terminated and the good one processed", func() bool {
				n := c.Stats()
				return n.DeadLettered == 1 && n.Processed == 1
			})
			n := c.Stats()
			if n.Failed != 2 || failures.Load() != 3 {
				t.Errorf("stats %+v, OnError called %d times; want 2 redelivered failures, then the termination (3 errors)", n, failures.Load())
			}
			mu.Lock()
			if got := attempts["poison"]; len(got) != 3 || got[0] != 1 || got[1] != 2 || got[2] != 3 {
				t.Errorf("the poison message's attempts: %v, want [1 2 3]", got)
			}
			mu.Unlock()
			var dead []*jetstream.RawStreamMsg
			waitFor(t, "the dead letter", func() bool { dead = readDead(); return len(dead) > 0 })
			if len(dead) != 1 || dead[0].Header.Get("Idgen-Dead-Msg-Id") != "poison" || dead[0].Header.Get(idjetstream.HeaderDeadReason) != "boom" {
				t.Errorf("dead letters %+v, want the poison message with reason boom", dead)
			}
			// Term and Ack are sent without waiting for the server, after Stats counts them;
			// the AckWait, longer than waitFor's deadline, keeps a message that was not
			// terminated pending until the wait fails.
			waitFor(t, "the poison message terminated and the good one acknowledged, not left for redelivery", func() bool {
				info, err := cons.Info(ctx)
				return err == nil && info.NumAckPending == 0 && info.NumPending == 0
			})
			rows, keys := s.Effects(t)
			if rows != 1 || keys != 1 {
				t.Errorf("effects: %d rows, want only good's", rows)
			}
			if n := s.Count(t, "idgen_done"); n != 1 {
				t.Errorf("the ledger holds %d keys, want 1 (good's)", n)
			}
		})
	}
}

// TestNoKey: a message without a key is never processed; it is counted, reported as a
// *consume.NoKeyError and routed as configured: terminated, or dead-lettered. A message with
// its key in the header named is processed.
func TestNoKey(t *testing.T) {
	url := natsURL(t)
	for _, tc := range []struct {
		name  string
		opts  idjetstream.Options
		noKey nats.Header // headers of a message without a key
		key   nats.Header // headers of one with the key k1
		dead  int         // dead letters afterwards
	}{
		{"msg-id/term", idjetstream.Options{}, nats.Header{"X-Order": {"k"}}, nats.Header{jetstream.MsgIDHeader: {"k1"}}, 0},
		{"header/dead-letter", idjetstream.Options{KeyHeader: "X-Order", NoKey: idjetstream.NoKeyDeadLetter},
			nats.Header{jetstream.MsgIDHeader: {"not the header"}}, nats.Header{"X-Order": {"k1"}}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, js := connect(t, url)
			str, subject := stream(t, js, "nokey", jetstream.StreamConfig{})
			ctx := context.Background()
			cons, err := str.CreateOrUpdateConsumer(ctx, consumerConfig("nokey", 30*time.Second, 5))
			if err != nil {
				t.Fatal(err)
			}
			deadSubject, readDead := deadLetters(t, js)
			var keys sync.Map
			proc := consume.AtLeastOnce(func(ctx context.Context, d idjetstream.Delivery) error {
				keys.Store(d.Key, true)
				return nil
			})
			var noKeyErrs atomic.Int64
			opts := tc.opts
			opts.DeadLetterSubject = deadSubject
			opts.OnError = func(d idjetstream.Delivery, err error) {
				var nk *consume.NoKeyError
				if !errors.Is(err, consume.ErrNoKey) || !errors.As(err, &nk) {
					t.Errorf("OnError: %v, want a *consume.NoKeyError", err)
				}
				noKeyErrs.Add(1)
			}
			c, err := idjetstream.NewConsumer(js, cons, proc, opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range []nats.Header{tc.noKey, tc.key} {
				if _, err := js.PublishMsg(ctx, &nats.Msg{Subject: subject, Header: h, Data: []byte("x")}); err != nil {
					t.Fatal(err)
				}
			}
			run(t, c)
			waitFor(t, "both messages handled", func() bool {
				n := c.Stats()
				return n.NoKey == 1 && n.Processed == 1
			})
			if noKeyErrs.Load() != 1 {
				t.Errorf("%d no-key errors reported, want 1", noKeyErrs.Load())
			}
			n := 0
			keys.Range(func(k, _ any) bool {
				n++
				if k != "k1" {
					t.Errorf("processed key %q, want only k1", k)
				}
				return true
			})
			if n != 1 {
				t.Errorf("processed %d keys, want 1", n)
			}
			waitFor(t, "the consumer to have nothing unacknowledged", func() bool {
				info, err := cons.Info(ctx)
				return err == nil && info.NumAckPending == 0 && info.NumPending == 0
			})
			if got := len(readDead()); got != tc.dead {
				t.Errorf("%d dead letters, want %d", got, tc.dead)
			}
		})
	}
}

// TestBeyondWindow: the stream's duplicate window drops a producer's retry inside it; a
// retry after it is stored again, and the consumer's ledger runs its effect once all the
// same.
func TestBeyondWindow(t *testing.T) {
	url := natsURL(t)
	s := consumetest.Kinds()[0].Open(t, "jetstream_window")
	_, js := connect(t, url)
	const window = 200 * time.Millisecond
	str, subject := stream(t, js, "window", jetstream.StreamConfig{Duplicates: window})
	ctx := context.Background()
	ack, err := idjetstream.Publish(ctx, js, subject, "order-1", []byte("first"))
	if err != nil || ack.Duplicate {
		t.Fatalf("first publish: %+v, %v", ack, err)
	}
	ack, err = idjetstream.Publish(ctx, js, subject, "order-1", []byte("retry"))
	if err != nil || !ack.Duplicate {
		t.Fatalf("a retry inside the window: %+v, %v; want it dropped as a duplicate", ack, err)
	}
	// Retry until the window has passed and the stream stores the retry again: the event
	// this test is about, rather than a sleep as long as the window.
	waitFor(t, "a retry after the window to be stored", func() bool {
		ack, err := idjetstream.Publish(ctx, js, subject, "order-1", []byte("late retry"))
		if err != nil {
			t.Fatal(err)
		}
		return !ack.Duplicate
	})
	cons, err := str.CreateOrUpdateConsumer(ctx, consumerConfig("window", 30*time.Second, 5))
	if err != nil {
		t.Fatal(err)
	}
	insert := s.Insert()
	c, err := idjetstream.NewConsumer(js, cons, consume.OnceTx(s.DB, s.Ledger, func(ctx context.Context, tx *sql.Tx, d idjetstream.Delivery) error {
		_, err := tx.ExecContext(ctx, insert, d.Key, 0)
		return err
	}), idjetstream.Options{})
	if err != nil {
		t.Fatal(err)
	}
	run(t, c)
	waitFor(t, "both stored copies handled", func() bool {
		n := c.Stats()
		return n.Processed+n.Duplicate == 2
	})
	if n := c.Stats(); n.Processed != 1 || n.Duplicate != 1 {
		t.Errorf("stats %+v: want 1 processed, 1 duplicate", n)
	}
	if rows, _ := s.Effects(t); rows != 1 {
		t.Errorf("%d effect rows, want 1", rows)
	}
}

// TestAckPolicy: NewConsumer refuses a consumer that does not acknowledge each message.
func TestAckPolicy(t *testing.T) {
	url := natsURL(t)
	_, js := connect(t, url)
	str, _ := stream(t, js, "ackpolicy", jetstream.StreamConfig{})
	cons, err := str.CreateOrUpdateConsumer(context.Background(), jetstream.ConsumerConfig{Durable: "all", AckPolicy: jetstream.AckAllPolicy})
	if err != nil {
		t.Fatal(err)
	}
	_, err = idjetstream.NewConsumer(js, cons, consume.AtLeastOnce(func(context.Context, idjetstream.Delivery) error { return nil }), idjetstream.Options{})
	if !errors.Is(err, idjetstream.ErrAckPolicy) {
		t.Errorf("NewConsumer: %v, want ErrAckPolicy", err)
	}
}
