//go:build unix

package idrabbit_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/idgen/idgen/integration/internal/consumetest"
	"github.com/idgen/idgen/plugins/idrabbit"
	"github.com/idgen/idgen/runtime/consume"
)

// specEnv holds, as JSON, the childSpec of a consumer process; the test binary is one when
// it is set.
const specEnv = "IDGEN_RABBIT_CHILD_SPEC"

// childSpec is what a consumer process consumes and where it writes.
type childSpec struct {
	URL, Queue     string
	Store          consumetest.Store
	Prefetch, Conc int
	Batch          bool   // NewBatchConsumer with consume.OnceTxBatch
	MaxAttempts    int    // Options.MaxAttempts
	Poison         string // the key of a message whose handler fails after writing its row
}

func TestMain(m *testing.M) {
	if os.Getenv(specEnv) == "" {
		os.Exit(m.Run())
	}
	if err := child(); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// child consumes with the exactly-once processor until SIGTERM (consumetest.Serve).
func child() error {
	var spec childSpec
	if err := json.Unmarshal([]byte(os.Getenv(specEnv)), &spec); err != nil {
		return err
	}
	s := spec.Store
	if err := s.Open(); err != nil {
		return err
	}
	defer s.DB.Close()
	conn, err := amqp.Dial(spec.URL)
	if err != nil {
		return err
	}
	defer conn.Close()
	insert, pid := s.Insert(), os.Getpid()
	fn := func(ctx context.Context, tx *sql.Tx, d idrabbit.Delivery) error {
		if _, err := tx.ExecContext(ctx, insert, d.Key, pid); err != nil {
			return err
		}
		if spec.Poison != "" && d.Key == spec.Poison {
			return errors.New("poison")
		}
		return nil
	}
	opts := idrabbit.Options{Queue: spec.Queue, Prefetch: spec.Prefetch, Concurrency: spec.Conc, MaxAttempts: spec.MaxAttempts,
		OnError: func(d idrabbit.Delivery, err error) { fmt.Fprintln(os.Stderr, err) }}
	var c *idrabbit.Consumer
	if spec.Batch {
		c, err = idrabbit.NewBatchConsumer(conn, consume.OnceTxBatch(s.DB, s.Ledger, fn), opts)
	} else {
		c, err = idrabbit.NewConsumer(conn, consume.OnceTx(s.DB, s.Ledger, fn), opts)
	}
	if err != nil {
		return err
	}
	return consumetest.Serve(c)
}

// TestProcesses: 3 consumer processes, 20,000 messages each published twice (a producer
// retry), and a consumer SIGKILLed and restarted at random points at least 3 times: once
// the queue is drained, the effect table holds exactly one row per message, on PostgreSQL
// and on MariaDB.
// Each database twice: consumers made by NewConsumer (consume.OnceTx), and by
// NewBatchConsumer (consume.OnceTxBatch, batches of up to 16), the "-batch" subtests.
// The first subtest carries the full load; the other three prove their own store and
// consumer under the same kills with a quarter of the messages (a heavy fault test runs
// once at full size).
func TestProcesses(t *testing.T) {
	url := amqpURL(t)
	const (
		full      = 20000 // messages of the first subtest; the others have full/4
		consumers = 3
		kills     = 4
	)
	subtests := 0
	for _, kind := range consumetest.Kinds() {
		for _, batch := range []bool{false, true} {
			messages := full
			if subtests++; subtests > 1 {
				messages = full / 4
			}
			name := kind.Name
			if batch {
				name += "-batch"
			}
			t.Run(name, func(t *testing.T) {
				s := kind.Open(t, "rabbit_procs_"+kind.Name)
				conn := dial(t, url)
				q := queueName(t, url, "procs")
				// A limit kills alone cannot reach: every message is processed, never
				// dead-lettered for being in flight when its consumer died.
				if _, _, err := idrabbit.DeclareQueue(channel(t, conn), q, idrabbit.QueueOptions{DeliveryLimit: 100}); err != nil {
					t.Fatal(err)
				}
				specJSON, err := json.Marshal(childSpec{URL: url, Queue: q, Store: *s, Prefetch: 64, Conc: 8, Batch: batch})
				if err != nil {
					t.Fatal(err)
				}
				env := specEnv + "=" + string(specJSON)
				procs := make([]*consumetest.Process, consumers)
				var gone []*consumetest.Process // killed or stopped: their counts are final
				for i := range procs {
					procs[i] = consumetest.Start(t, env)
				}

				// The producer: every message twice, the second a retry with the same key.
				pubErr := make(chan error, 1)
				go func() { pubErr <- publishTwice(url, q, messages) }()

				// Kill a random consumer whenever the effects pass a random point between 5% and
				// 85% of the messages, and start another in its place.
				points := make([]int, kills)
				for i := range points {
					points[i] = messages/20 + rand.IntN(messages*80/100)
				}
				slices.Sort(points)
				deadline := time.Now().Add(5 * time.Minute)
				killed, published := 0, false
				for keys := 0; !published || keys < messages || queueLen(t, conn, q) > 0; _, keys = s.Effects(t) {
					select {
					case err := <-pubErr:
						if err != nil {
							t.Fatal(err)
						}
						published = true
					default:
					}
					if time.Now().After(deadline) {
						t.Fatalf("not drained after 5 minutes: %d of %d messages have effects, %d ready", keys, messages, queueLen(t, conn, q))
					}
					if killed < kills && keys >= points[killed] {
						i := rand.IntN(consumers)
						procs[i].Kill()
						gone = append(gone, procs[i])
						procs[i] = consumetest.Start(t, env)
						killed++
						t.Logf("SIGKILLed consumer %d at %d effects", i, keys)
					}
					time.Sleep(20 * time.Millisecond)
				}
				if killed < 3 {
					t.Fatalf("only %d kills", killed)
				}
				for _, p := range procs {
					if err := p.Stop(); err != nil {
						t.Error(err)
					}
					gone = append(gone, p)
				}

				// Stopped consumers hold nothing unacknowledged: a message still in the queue
				// now would be one without an effect.
				if n := queueLen(t, conn, q); n != 0 {
					t.Errorf("%d messages left in the queue", n)
				}
				if n := queueLen(t, conn, q+".dead"); n != 0 {
					t.Errorf("%d messages dead-lettered", n)
				}
				rows, keys := s.Effects(t)
				have, missing := s.Keys(t), 0
				for i := range messages {
					if !have[key(i)] {
						missing++
					}
				}
				total := consumetest.Sum(gone)
				t.Logf("%s: %d messages published twice, %d consumers, %d SIGKILLs: %d effect rows, %d keys, %d missing, %d duplicate; "+
					"the consumers counted %d processed, %d duplicates skipped, %d failed, %d redeliveries (a killed consumer's last 50 ms are not counted)",
					s.Name, messages, consumers, killed, rows, keys, missing, rows-keys,
					total.Processed, total.Duplicate, total.Failed, total.Redelivered)
				if rows != messages || keys != messages || missing != 0 {
					t.Errorf("effects: %d rows of %d keys, %d missing; want exactly %d rows, one per message", rows, keys, missing, messages)
				}
				if total.Redelivered == 0 {
					t.Errorf("no redelivery counted: the kills did not interrupt work")
				}
			})
		}
	}
}

// key is message i's key.
func key(i int) string { return "m" + strconv.Itoa(i) }

// publishTwice publishes messages 0..n-1 to queue q, each twice in a row, with up to 512
// confirmations outstanding; a nacked message is published again.
func publishTwice(url, q string, n int) error { return publish(url, q, keys(n), 2) }

// keys returns the keys of messages 0..n-1.
func keys(n int) []string {
	ks := make([]string, n)
	for i := range ks {
		ks[i] = key(i)
	}
	return ks
}

// publish publishes the messages of keys to queue q, each copies times in a row, with up
// to 512 confirmations outstanding; a nacked message is published again.
func publish(url, q string, keys []string, copies int) error {
	conn, err := amqp.Dial(url)
	if err != nil {
		return err
	}
	defer conn.Close()
	ch, err := conn.Channel()
	if err != nil {
		return err
	}
	pub, err := idrabbit.NewPublisher(ch)
	if err != nil {
		return err
	}
	ctx := context.Background()
	type pending struct {
		dc  *amqp.DeferredConfirmation
		key string
	}
	var window []pending
	flush := func(keep int) error {
		for len(window) > keep {
			p := window[0]
			window = window[1:]
			ok, err := p.dc.WaitContext(ctx)
			if err != nil {
				return err
			}
			if !ok {
				if err := pub.Publish(ctx, "", q, p.key, amqp.Publishing{Body: []byte(p.key)}); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for _, k := range keys {
		for range copies {
			dc, err := pub.PublishAsync(ctx, "", q, k, amqp.Publishing{Body: []byte(k)})
			if err != nil {
				return err
			}
			window = append(window, pending{dc, k})
		}
		if err := flush(512); err != nil {
			return err
		}
	}
	return flush(0)
}
