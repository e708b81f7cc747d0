package idjetstream_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/idgen/idgen/integration/internal/consumetest"
	"github.com/idgen/idgen/plugins/idjetstream"
	"github.com/idgen/idgen/runtime/consume"
	"github.com/idgen/idgen/runtime/ledger"
)

// sizes records the largest batch a Batch saw.
type sizes struct {
	mu  sync.Mutex
	max int
}

func (s *sizes) wrap(b consume.Batch[idjetstream.Delivery]) consume.Batch[idjetstream.Delivery] {
	return func(ctx context.Context, keys []string, ds []idjetstream.Delivery) ([]bool, error) {
		s.mu.Lock()
		s.max = max(s.max, len(keys))
		s.mu.Unlock()
		return b(ctx, keys, ds)
	}
}

// publishKeyed publishes a message whose key is in the header X-Key (no Nats-Msg-Id, so
// the stream keeps a copy published twice).
func publishKeyed(t *testing.T, js jetstream.JetStream, subject, key string) {
	t.Helper()
	m := nats.NewMsg(subject)
	m.Header.Set("X-Key", key)
	m.Data = []byte(key)
	if _, err := js.PublishMsg(context.Background(), m); err != nil {
		t.Fatal(err)
	}
}

// TestBatch: a batch consumer given 30 messages each published twice in a row (duplicates
// inside one batch), two whose keys are already done, and one whose effect fails every
// time: every good message's effect once, the duplicates and done keys acknowledged
// without effect, the failing one redelivered twice and terminated to the dead-letter
// subject at delivery 3, exactly as without batching; batches of more than one ran.
func TestBatch(t *testing.T) {
	url := natsURL(t)
	for _, kind := range consumetest.Kinds() {
		t.Run(kind.Name, func(t *testing.T) {
			s := kind.Open(t, "jetstream_batch_"+kind.Name)
			_, js := connect(t, url)
			str, subject := stream(t, js, "batch", jetstream.StreamConfig{})
			ctx := context.Background()
			cons, err := str.CreateOrUpdateConsumer(ctx, consumerConfig("batch", 30*time.Second, 3))
			if err != nil {
				t.Fatal(err)
			}
			deadSubject, readDead := deadLetters(t, js)
			boom := errors.New("boom")
			insert := s.Insert()
			fn := func(ctx context.Context, tx *sql.Tx, d idjetstream.Delivery) error {
				if _, err := tx.ExecContext(ctx, insert, d.Key, 0); err != nil {
					return err
				}
				if d.Key == "poison" {
					return boom // after its effect: the rollback must undo it, and its batch's
				}
				return nil
			}
			scope := "jetstream:" + str.CachedInfo().Config.Name + ".batch" // the consumer's default Name
			for _, k := range []string{"done1", "done2"} {
				if ran, err := consume.OnceTx(s.DB, s.Ledger, fn)(ctx, ledger.ScopedKey(scope, k), idjetstream.Delivery{Key: k}); !ran || err != nil {
					t.Fatalf("recording %s beforehand: %v %v", k, ran, err)
				}
			}
			var sz sizes
			var failures atomic.Int64
			c, err := idjetstream.NewBatchConsumer(js, cons, sz.wrap(consume.OnceTxBatch(s.DB, s.Ledger, fn)),
				idjetstream.Options{KeyHeader: "X-Key", DeadLetterSubject: deadSubject, Concurrency: 2, BatchSize: 8,
					OnError: func(d idjetstream.Delivery, err error) {
						if !errors.Is(err, boom) || d.Key != "poison" {
							t.Errorf("OnError(%q): %v, want poison's boom", d.Key, err)
						}
						failures.Add(1)
					}})
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
				publishKeyed(t, js, subject, k)
			}
			run(t, c)
			waitFor(t, "every message handled", func() bool {
				n := c.Stats()
				return n.Processed+n.Duplicate+n.Failed+n.DeadLettered == int64(len(keys))+2
			})
			want := consume.Counts{Processed: 30, Duplicate: 32, Failed: 2, DeadLettered: 1, Redelivered: 2}
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
			var dead []*jetstream.RawStreamMsg
			waitFor(t, "the dead letter", func() bool { dead = readDead(); return len(dead) > 0 })
			if len(dead) != 1 || dead[0].Header.Get("X-Key") != "poison" {
				t.Errorf("dead letters %+v, want the poison message", dead)
			}
			waitFor(t, "nothing pending", func() bool {
				info, err := cons.Info(ctx)
				return err == nil && info.NumAckPending == 0 && info.NumPending == 0
			})
		})
	}
}

// TestBatchCrashBeforeAck: the connection dies after a batch committed and before its
// acknowledgements: JetStream redelivers the batch after AckWait to the next consumer,
// which finds every key done and runs nothing twice.
func TestBatchCrashBeforeAck(t *testing.T) {
	url := natsURL(t)
	for _, kind := range consumetest.Kinds() {
		t.Run(kind.Name, func(t *testing.T) {
			s := kind.Open(t, "jetstream_batchcrash_"+kind.Name)
			_, js := connect(t, url)
			str, subject := stream(t, js, "batchcrash", jetstream.StreamConfig{})
			ctx := context.Background()
			cfg := consumerConfig("batchcrash", time.Second, 5)
			if _, err := str.CreateOrUpdateConsumer(ctx, cfg); err != nil {
				t.Fatal(err)
			}
			insert := s.Insert()
			batch := consume.OnceTxBatch(s.DB, s.Ledger, func(ctx context.Context, tx *sql.Tx, d idjetstream.Delivery) error {
				_, err := tx.ExecContext(ctx, insert, d.Key, 0)
				return err
			})
			const n = 40
			for i := range n {
				if _, err := idjetstream.Publish(ctx, js, subject, fmt.Sprintf("m%02d", i), []byte("x")); err != nil {
					t.Fatal(err)
				}
			}
			nc1, js1 := connect(t, url)
			cons1, err := js1.Consumer(ctx, str.CachedInfo().Config.Name, cfg.Durable)
			if err != nil {
				t.Fatal(err)
			}
			var crashed atomic.Int64 // the size of the batch committed before the crash
			crashing := func(ctx context.Context, keys []string, ds []idjetstream.Delivery) ([]bool, error) {
				ran, err := batch(ctx, keys, ds)
				if err == nil && len(keys) > 1 && crashed.CompareAndSwap(0, int64(len(keys))) {
					nc1.Close() // committed, not acknowledged
				}
				return ran, err
			}
			first, err := idjetstream.NewBatchConsumer(js1, cons1, crashing, idjetstream.Options{Concurrency: 1, BatchSize: 8,
				OnError: func(idjetstream.Delivery, error) {}}) // the failed acks and pulls
			if err != nil {
				t.Fatal(err)
			}
			if err := first.Run(ctx); err == nil {
				t.Fatal("Run returned nil after its connection closed")
			}
			if crashed.Load() == 0 {
				t.Fatal("no batch of more than one message ran")
			}
			cons2, err := js.Consumer(ctx, str.CachedInfo().Config.Name, cfg.Durable)
			if err != nil {
				t.Fatal(err)
			}
			second, err := idjetstream.NewBatchConsumer(js, cons2, batch, idjetstream.Options{BatchSize: 8,
				OnError: func(d idjetstream.Delivery, err error) { t.Errorf("%s: %v", d.Key, err) }})
			if err != nil {
				t.Fatal(err)
			}
			run(t, second)
			waitFor(t, "nothing pending", func() bool {
				info, err := cons2.Info(ctx)
				return err == nil && info.NumAckPending == 0 && info.NumPending == 0
			})
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
