package idrabbit_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/idgen/idgen/integration/internal/consumetest"
	"github.com/idgen/idgen/plugins/idrabbit"
	"github.com/idgen/idgen/runtime/consume"
	"github.com/idgen/idgen/runtime/ledger"
)

// sizes records the sizes of the batches a Batch saw.
type sizes struct {
	mu  sync.Mutex
	max int
}

func (s *sizes) wrap(b consume.Batch[idrabbit.Delivery]) consume.Batch[idrabbit.Delivery] {
	return func(ctx context.Context, keys []string, ds []idrabbit.Delivery) ([]bool, error) {
		s.mu.Lock()
		s.max = max(s.max, len(keys))
		s.mu.Unlock()
		return b(ctx, keys, ds)
	}
}

// TestBatch: a batch consumer given 30 messages each published twice in a row (duplicates
// inside one batch), two messages whose keys are already done, and a message whose
// effect fails every time: every good message's effect once, the duplicates and the done
// keys acknowledged without effect, the failing one tried again twice and dead-lettered
// at its third attempt, exactly as without batching, and batches of more than one message
// were run.
func TestBatch(t *testing.T) {
	url := amqpURL(t)
	for _, kind := range consumetest.Kinds() {
		t.Run(kind.Name, func(t *testing.T) {
			s := kind.Open(t, "rabbit_batch_"+kind.Name)
			conn := dial(t, url)
			q := queueName(t, url, "batch")
			if _, _, err := idrabbit.DeclareQueue(channel(t, conn), q, idrabbit.QueueOptions{}); err != nil {
				t.Fatal(err)
			}
			boom := errors.New("boom")
			insert := s.Insert()
			fn := func(ctx context.Context, tx *sql.Tx, d idrabbit.Delivery) error {
				if _, err := tx.ExecContext(ctx, insert, d.Key, 0); err != nil {
					return err
				}
				if d.Key == "poison" {
					return boom // after its effect: the rollback must undo it, and its batch's
				}
				return nil
			}
			ctx := context.Background()
			for _, k := range []string{"done1", "done2"} { // done by a consumer of this queue
				if ran, err := consume.OnceTx(s.DB, s.Ledger, fn)(ctx, ledger.ScopedKey("rabbitmq:"+q, k), idrabbit.Delivery{Key: k}); !ran || err != nil {
					t.Fatalf("recording %s beforehand: %v %v", k, ran, err)
				}
			}
			var sz sizes
			var failures atomic.Int64
			c, err := idrabbit.NewBatchConsumer(conn, sz.wrap(consume.OnceTxBatch(s.DB, s.Ledger, fn)),
				idrabbit.Options{Queue: q, MaxAttempts: 3, Concurrency: 2, BatchSize: 8,
					OnError: func(d idrabbit.Delivery, err error) {
						if !errors.Is(err, boom) || d.Key != "poison" {
							t.Errorf("OnError(%q): %v, want poison's boom", d.Key, err)
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
			var keys []string
			for i := range 30 {
				k := fmt.Sprintf("k%02d", i)
				keys = append(keys, k, k)
				if i == 10 {
					keys = append(keys, "done1", "poison")
				}
			}
			keys = append(keys, "done2")
			for _, k := range keys {
				if err := pub.Publish(ctx, "", q, k, amqp.Publishing{Body: []byte(k)}); err != nil {
					t.Fatal(err)
				}
			}
			run(t, c)
			waitFor(t, "every message handled", func() bool {
				n := c.Stats()
				return n.Processed+n.Duplicate+n.Failed+n.DeadLettered == int64(len(keys))+2
			})
			// The poison message is tried again in the consumer, not redelivered.
			want := consume.Counts{Processed: 30, Duplicate: 32, Failed: 2, DeadLettered: 1}
			if got := c.Stats(); got != want {
				t.Errorf("stats %+v, want %+v", got, want)
			}
			if failures.Load() != 3 {
				t.Errorf("OnError heard %d failures, want 3", failures.Load())
			}
			if sz.max < 2 {
				t.Errorf("the largest batch had %d messages: the batch path did not run", sz.max)
			}
			rows, distinct := s.Effects(t)
			got := s.Keys(t)
			if rows != 32 || distinct != 32 || got["poison"] || !got["k29"] || !got["done1"] {
				t.Errorf("effects: %d rows of %d keys (%v); want 32 (k00-k29, done1, done2), none of poison", rows, distinct, got)
			}
			if n := s.Count(t, "idgen_done"); n != 32 {
				t.Errorf("the ledger holds %d keys, want 32", n)
			}
			if dead := deadLetter(t, conn, q); dead.MessageId != "poison" {
				t.Errorf("dead-lettered %q, want poison", dead.MessageId)
			}
		})
	}
}

// TestBatchCrashBeforeAck: the connection dies after a batch committed and before its
// acknowledgements: RabbitMQ redelivers the batch to the next consumer, which finds every
// key done and runs nothing twice.
func TestBatchCrashBeforeAck(t *testing.T) {
	url := amqpURL(t)
	for _, kind := range consumetest.Kinds() {
		t.Run(kind.Name, func(t *testing.T) {
			s := kind.Open(t, "rabbit_batchcrash_"+kind.Name)
			q := queueName(t, url, "batchcrash")
			setup := dial(t, url)
			if _, _, err := idrabbit.DeclareQueue(channel(t, setup), q, idrabbit.QueueOptions{}); err != nil {
				t.Fatal(err)
			}
			insert := s.Insert()
			batch := consume.OnceTxBatch(s.DB, s.Ledger, func(ctx context.Context, tx *sql.Tx, d idrabbit.Delivery) error {
				_, err := tx.ExecContext(ctx, insert, d.Key, 0)
				return err
			})
			conn := dial(t, url)
			var crashed atomic.Int64 // the size of the batch committed before the crash
			crashing := func(ctx context.Context, keys []string, ds []idrabbit.Delivery) ([]bool, error) {
				ran, err := batch(ctx, keys, ds)
				if err == nil && len(keys) > 1 && crashed.CompareAndSwap(0, int64(len(keys))) {
					conn.Close() // committed, not acknowledged
				}
				return ran, err
			}
			first, err := idrabbit.NewBatchConsumer(conn, crashing, idrabbit.Options{Queue: q, Concurrency: 1, BatchSize: 8,
				OnError: func(idrabbit.Delivery, error) {}}) // the failed acks
			if err != nil {
				t.Fatal(err)
			}
			pub, err := idrabbit.NewPublisher(channel(t, setup))
			if err != nil {
				t.Fatal(err)
			}
			const n = 40
			ctx := context.Background()
			for i := range n {
				if err := pub.Publish(ctx, "", q, fmt.Sprintf("m%02d", i), amqp.Publishing{Body: []byte("x")}); err != nil {
					t.Fatal(err)
				}
			}
			if err := first.Run(ctx); err == nil {
				t.Fatal("Run returned nil after its connection closed")
			}
			if crashed.Load() == 0 {
				t.Fatal("no batch of more than one message ran")
			}
			second, err := idrabbit.NewBatchConsumer(dial(t, url), batch, idrabbit.Options{Queue: q, BatchSize: 8,
				OnError: func(d idrabbit.Delivery, err error) { t.Errorf("%s: %v", d.Key, err) }})
			if err != nil {
				t.Fatal(err)
			}
			stop := run(t, second)
			waitFor(t, "every key's effect", func() bool { rows, _ := s.Effects(t); return rows >= n })
			waitFor(t, "the queue drained", func() bool { return queueLen(t, setup, q) == 0 })
			// A batch's rows are visible at its commit, before its outcomes are counted; Run
			// returns after the deliveries it received are counted and acknowledged.
			stop()
			p1, p2 := first.Stats().Processed, second.Stats()
			if p1+p2.Processed != n {
				t.Errorf("processed %d before the crash and %d after, want %d in all", p1, p2.Processed, n)
			}
			if p2.Duplicate < crashed.Load() {
				t.Errorf("%d duplicates after the crash, want at least the %d of the unacknowledged batch", p2.Duplicate, crashed.Load())
			}
			if rows, distinct := s.Effects(t); rows != n || distinct != n {
				t.Errorf("effects: %d rows of %d keys; want %d of %d", rows, distinct, n, n)
			}
		})
	}
}
