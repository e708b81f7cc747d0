package idrabbit_test

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/idgen/idgen/integration/internal/consumetest"
	"github.com/idgen/idgen/plugins/idrabbit"
	"github.com/idgen/idgen/runtime/consume"
)

// run starts c.Run and, when the test ends or stop is called (whichever comes first),
// stops it and checks that it returned nil.
func run(t *testing.T, c *idrabbit.Consumer) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	stop = sync.OnceFunc(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	t.Cleanup(stop)
	return stop
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

// TestPoison: a message whose processing fails every time is requeued twice and
// dead-lettered at its third attempt, and nothing of it is recorded as done; a good
// message beside it is processed once.
func TestPoison(t *testing.T) {
	url := amqpURL(t)
	for _, kind := range consumetest.Kinds() {
		t.Run(kind.Name, func(t *testing.T) {
			s := kind.Open(t, "rabbit_poison_"+kind.Name)
			conn := dial(t, url)
			q := queueName(t, url, "poison")
			if _, _, err := idrabbit.DeclareQueue(channel(t, conn), q, idrabbit.QueueOptions{}); err != nil {
				t.Fatal(err)
			}
			var attempts sync.Map // key -> []int, the attempts the handler saw
			var mu sync.Mutex
			boom := errors.New("boom")
			insert := s.Insert()
			proc := consume.OnceTx(s.DB, s.Ledger, func(ctx context.Context, tx *sql.Tx, d idrabbit.Delivery) error {
				mu.Lock()
				prev, _ := attempts.Load(d.Key)
				seen, _ := prev.([]int)
				attempts.Store(d.Key, append(seen, d.Attempt))
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
			c, err := idrabbit.NewConsumer(conn, proc, idrabbit.Options{Queue: q, MaxAttempts: 3,
				OnError: func(d idrabbit.Delivery, err error) {
					var fe *idrabbit.FailedError
					if !errors.As(err, &fe) || !errors.Is(err, boom) {
						t.Errorf("OnError: %v, want a *FailedError wrapping boom", err)
					}
					failures.Add(1)
				}})
			if err != nil {
				t.Fatal(err)
			}
			pub, err := idrabbit.NewPublisher(channel(t, conn))
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			for _, key := range []string{"poison", "good"} {
				if err := pub.Publish(ctx, "", q, key, amqp.Publishing{Body: []byte(key)}); err != nil {
					t.Fatal(err)
				}
			}
			run(t, c)
			waitFor(t, "the poison message dead-lettered and the good one processed", func() bool {
				n := c.Stats()
				return n.DeadLettered == 1 && n.Processed == 1
			})
			n := c.Stats()
			if n.Failed != 2 || failures.Load() != 3 {
				t.Errorf("stats %+v, OnError called %d times; want 2 requeued failures, then the dead letter (3 errors)", n, failures.Load())
			}
			if got, _ := attempts.Load("poison"); !equal(got.([]int), []int{1, 2, 3}) {
				t.Errorf("the poison message's attempts: %v, want [1 2 3]", got)
			}
			if dead := deadLetter(t, conn, q); dead.MessageId != "poison" {
				t.Errorf("dead-lettered %q, want poison", dead.MessageId)
			}
			if rows, _ := s.Effects(t); rows != 1 || !s.Keys(t)["good"] {
				t.Errorf("effects: %d rows of %v, want only good's", rows, s.Keys(t))
			}
			if n := s.Count(t, "idgen_done"); n != 1 {
				t.Errorf("the ledger holds %d keys, want 1 (good's)", n)
			}
		})
	}
}

func equal(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestNoKey: a message without a key is never processed; it is counted, reported as a
// *consume.NoKeyError and routed as configured: rejected to the dead-letter queue, or
// dropped. A message with its key in the header named is processed.
func TestNoKey(t *testing.T) {
	url := amqpURL(t)
	for _, tc := range []struct {
		name   string
		opts   idrabbit.Options
		noKey  amqp.Publishing // a message without a key
		header amqp.Publishing // a message with one, processed
		dead   int             // messages in the dead-letter queue afterwards
	}{
		{"message-id/reject", idrabbit.Options{},
			amqp.Publishing{Body: []byte("no id")}, amqp.Publishing{MessageId: "k1"}, 1},
		{"header/reject", idrabbit.Options{KeyHeader: "X-Order", NoKey: idrabbit.NoKeyReject},
			amqp.Publishing{MessageId: "not the header"}, amqp.Publishing{Headers: amqp.Table{"X-Order": "k1"}}, 1},
		{"header/drop", idrabbit.Options{KeyHeader: "X-Order", NoKey: idrabbit.NoKeyDrop},
			amqp.Publishing{Headers: amqp.Table{"X-Other": "k"}}, amqp.Publishing{Headers: amqp.Table{"X-Order": int64(7)}}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn := dial(t, url)
			q := queueName(t, url, "nokey")
			ch := channel(t, conn)
			if _, _, err := idrabbit.DeclareQueue(ch, q, idrabbit.QueueOptions{}); err != nil {
				t.Fatal(err)
			}
			var keys sync.Map
			proc := consume.AtLeastOnce(func(ctx context.Context, d idrabbit.Delivery) error {
				keys.Store(d.Key, true)
				return nil
			})
			var noKeyErrs atomic.Int64
			opts := tc.opts
			opts.Queue = q
			opts.OnError = func(d idrabbit.Delivery, err error) {
				var nk *consume.NoKeyError
				if !errors.Is(err, consume.ErrNoKey) || !errors.As(err, &nk) {
					t.Errorf("OnError: %v, want a *consume.NoKeyError", err)
				}
				noKeyErrs.Add(1)
			}
			c, err := idrabbit.NewConsumer(conn, proc, opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range []amqp.Publishing{tc.noKey, tc.header} {
				if err := ch.PublishWithContext(context.Background(), "", q, false, false, m); err != nil {
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
			want := "k1"
			if tc.name == "header/drop" {
				want = "7"
			}
			n := 0
			keys.Range(func(k, _ any) bool {
				n++
				if k != want {
					t.Errorf("processed key %q, want only %q", k, want)
				}
				return true
			})
			if n != 1 {
				t.Errorf("processed %d keys, want 1", n)
			}
			waitFor(t, "the dead-letter queue to settle", func() bool { return queueLen(t, conn, q+".dead") == tc.dead })
			if got := queueLen(t, conn, q); got != 0 {
				t.Errorf("%d messages left in the queue", got)
			}
		})
	}
}

// TestServerCancel: when RabbitMQ cancels the consumer (its queue deleted under it), Run
// returns ErrCancelled instead of waiting for a connection close that never comes, and
// the deliveries it had were processed first.
func TestServerCancel(t *testing.T) {
	url := amqpURL(t)
	conn := dial(t, url)
	q := queueName(t, url, "cancel")
	if _, _, err := idrabbit.DeclareQueue(channel(t, conn), q, idrabbit.QueueOptions{}); err != nil {
		t.Fatal(err)
	}
	pub, err := idrabbit.NewPublisher(channel(t, conn))
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"a", "b", "c"} {
		if err := pub.Publish(context.Background(), "", q, key, amqp.Publishing{Body: []byte(key)}); err != nil {
			t.Fatal(err)
		}
	}
	c, err := idrabbit.NewConsumer(conn, consume.AtLeastOnce(func(context.Context, idrabbit.Delivery) error { return nil }),
		idrabbit.Options{Queue: q})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	waitFor(t, "the three messages processed", func() bool { return c.Stats().Processed == 3 })
	if _, err := channel(t, conn).QueueDelete(q, false, false, false); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if !errors.Is(err, idrabbit.ErrCancelled) {
			t.Fatalf("Run returned %v, want ErrCancelled", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Run still running a minute after its queue was deleted")
	}
}

// TestRecoveryRefused: a connection that reopens its channels by itself (amqp091-go's
// Recovery) is refused, since an acknowledgement from before a recovery would settle
// another message on the new channel.
func TestRecoveryRefused(t *testing.T) {
	url := amqpURL(t)
	conn, err := amqp.DialConfig(url, amqp.Config{Recovery: &amqp.Recovery{
		ReconnectionConfig: &amqp.ReconnectionConfig{MaxRetryCount: 3, RetryInterval: time.Second}}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	proc := consume.AtLeastOnce(func(context.Context, idrabbit.Delivery) error { return nil })
	if _, err := idrabbit.NewConsumer(conn, proc, idrabbit.Options{Queue: "q"}); !errors.Is(err, idrabbit.ErrRecovery) {
		t.Fatalf("NewConsumer on a recovering connection: %v, want ErrRecovery", err)
	}
	if _, err := idrabbit.NewConsumer(dial(t, url), proc, idrabbit.Options{Queue: "q"}); err != nil {
		t.Fatalf("NewConsumer on a plain connection: %v", err)
	}
}
