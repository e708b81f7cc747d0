package idjetstream_test

import (
	"context"
	"database/sql"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/idgen/idgen/integration/internal/consumetest"
	"github.com/idgen/idgen/plugins/idjetstream"
	"github.com/idgen/idgen/runtime/consume"
)

// BenchmarkConsume: consumers of file-backed streams, each message writing its effect row,
// exactly once in batches (NewBatchConsumer with consume.OnceTxBatch, the default batch
// size: the keys of a batch in one statement, the rows and the keys in one transaction)
// against bare consumers writing the same row one message at a time (consume.InTx: the
// same handler in a plain transaction; consume.AtLeastOnce: the row autocommitted), and
// exactly once one message at a time (consume.OnceTx), and a bare consumer in the same
// batches (consumetest.BareBatch: the rows of a batch in one transaction, no ledger), on
// the same NATS server and database,
// with Prefetch 64 and Concurrency 8. Each consumer handles b.N messages in turns of at
// most 2,000, the five taking turns, so that a neighbour's load on this shared machine
// falls on all alike; publishing is not timed. It reports each consumer's msgs/s, the
// ratios of batched exactly-once to each bare consumer (ratio-tx, ratio-autocommit) and
// of single exactly-once to the in-transaction one (ratio-single-tx), and of batched
// exactly-once to the bare batched one (ratio-batch), and the batched consumers' mean
// batch size (msgs/batch):
//
//	go test -run '^$' -bench Consume -benchtime 20000x -count 3
func BenchmarkConsume(b *testing.B) {
	url := natsURL(b)
	for _, kind := range consumetest.Kinds() {
		b.Run(kind.Name, func(b *testing.B) {
			s := kind.Open(b, "jetstream_bench_"+kind.Name)
			insert := s.Insert()
			modes := []*benchMode{
				{name: "exactly-once", batch: consume.OnceTxBatch(s.DB, s.Ledger, func(ctx context.Context, tx *sql.Tx, d idjetstream.Delivery) error {
					_, err := tx.ExecContext(ctx, insert, d.Key, 0)
					return err
				})},
				{name: "bare-tx", proc: consume.InTx(s.DB, func(ctx context.Context, tx *sql.Tx, d idjetstream.Delivery) error {
					_, err := tx.ExecContext(ctx, insert, d.Key, 0)
					return err
				})},
				{name: "bare-autocommit", proc: consume.AtLeastOnce(func(ctx context.Context, d idjetstream.Delivery) error {
					_, err := s.DB.ExecContext(ctx, insert, d.Key, 0)
					return err
				})},
				{name: "exactly-once-single", proc: consume.OnceTx(s.DB, s.Ledger, func(ctx context.Context, tx *sql.Tx, d idjetstream.Delivery) error {
					_, err := tx.ExecContext(ctx, insert, d.Key, 0)
					return err
				})},
				{name: "bare-batch", batch: consumetest.BareBatch(s.DB, func(ctx context.Context, tx *sql.Tx, d idjetstream.Delivery) error {
					_, err := tx.ExecContext(ctx, insert, d.Key, 0)
					return err
				})},
			}
			for _, m := range modes {
				if m.batch != nil {
					m.sizes = new(consumetest.BatchSizes)
					m.batch = consumetest.Count(m.sizes, m.batch)
				}
			}
			for _, table := range []string{"effects", "idgen_done"} {
				if _, err := s.DB.Exec("DELETE FROM " + table); err != nil {
					b.Fatal(err)
				}
			}
			_, js := connect(b, url)
			for _, m := range modes {
				m.setUp(b, js)
			}
			b.ResetTimer()
			for done := 0; done < b.N; {
				n := min(2000, b.N-done)
				for _, m := range modes {
					m.turn(b, done, n)
				}
				done += n
			}
			b.StopTimer()
			for _, m := range modes {
				b.ReportMetric(float64(b.N)/m.elapsed.Seconds(), m.name+"-msgs/s")
				if m.sizes != nil {
					b.ReportMetric(m.sizes.Mean(), m.name+"-msgs/batch")
				}
			}
			b.ReportMetric(modes[1].elapsed.Seconds()/modes[0].elapsed.Seconds(), "ratio-tx")
			b.ReportMetric(modes[2].elapsed.Seconds()/modes[0].elapsed.Seconds(), "ratio-autocommit")
			b.ReportMetric(modes[1].elapsed.Seconds()/modes[3].elapsed.Seconds(), "ratio-single-tx")
			b.ReportMetric(modes[4].elapsed.Seconds()/modes[0].elapsed.Seconds(), "ratio-batch")
		})
	}
}

// benchMode is one consumer of BenchmarkConsume, on a stream of its own.
type benchMode struct {
	name    string
	proc    consume.Processor[idjetstream.Delivery]
	batch   consume.Batch[idjetstream.Delivery] // if set, the consumer is NewBatchConsumer's
	sizes   *consumetest.BatchSizes             // of batch, if set
	js      jetstream.JetStream
	subject string
	c       *idjetstream.Consumer
	elapsed time.Duration // consuming, summed over the turns
}

func (m *benchMode) setUp(b *testing.B, js jetstream.JetStream) {
	m.js = js
	str, subject := stream(b, js, "bench", jetstream.StreamConfig{})
	m.subject = subject
	cons, err := str.CreateOrUpdateConsumer(context.Background(), consumerConfig("bench", 30*time.Second, 5))
	if err != nil {
		b.Fatal(err)
	}
	opts := idjetstream.Options{Prefetch: 64, Concurrency: 8,
		OnError: func(d idjetstream.Delivery, err error) { b.Error(err) }}
	if m.batch != nil {
		m.c, err = idjetstream.NewBatchConsumer(js, cons, m.batch, opts)
	} else {
		m.c, err = idjetstream.NewConsumer(js, cons, m.proc, opts)
	}
	if err != nil {
		b.Fatal(err)
	}
}

// turn publishes messages from..from+n-1 (untimed) and consumes them.
func (m *benchMode) turn(b *testing.B, from, n int) {
	b.StopTimer()
	futures := make([]jetstream.PubAckFuture, 0, n)
	for i := from; i < from+n; i++ {
		f, err := idjetstream.PublishAsync(m.js, m.subject, m.name+strconv.Itoa(i), []byte("x"))
		if err != nil {
			b.Fatal(err)
		}
		futures = append(futures, f)
	}
	for _, f := range futures {
		select {
		case <-f.Ok():
		case err := <-f.Err():
			b.Fatal(err)
		}
	}
	b.StartTimer()
	start := time.Now()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.c.Run(ctx) }()
	for m.c.Stats().Processed < int64(from+n) {
		time.Sleep(time.Millisecond)
	}
	m.elapsed += time.Since(start)
	cancel()
	if err := <-done; err != nil {
		b.Fatal(err)
	}
}
