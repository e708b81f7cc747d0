package idrabbit_test

import (
	"context"
	"database/sql"
	"strconv"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/idgen/idgen/integration/internal/consumetest"
	"github.com/idgen/idgen/plugins/idrabbit"
	"github.com/idgen/idgen/runtime/consume"
)

// BenchmarkConsume: consumers of quorum queues, each message writing its effect row,
// exactly once in batches (NewBatchConsumer with consume.OnceTxBatch, the default batch
// size: the keys of a batch in one statement, the rows and the keys in one transaction)
// against bare consumers writing the same row one message at a time (consume.InTx: the
// same handler in a plain transaction; consume.AtLeastOnce: the row autocommitted), and
// exactly once one message at a time (consume.OnceTx), and a bare consumer in the same
// batches (consumetest.BareBatch: the rows of a batch in one transaction, no ledger), on
// the same RabbitMQ and database,
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
	url := amqpURL(b)
	for _, kind := range consumetest.Kinds() {
		b.Run(kind.Name, func(b *testing.B) {
			s := kind.Open(b, "rabbit_bench_"+kind.Name)
			insert := s.Insert()
			modes := []*benchMode{
				{name: "exactly-once", batch: consume.OnceTxBatch(s.DB, s.Ledger, func(ctx context.Context, tx *sql.Tx, d idrabbit.Delivery) error {
					_, err := tx.ExecContext(ctx, insert, d.Key, 0)
					return err
				})},
				{name: "bare-tx", proc: consume.InTx(s.DB, func(ctx context.Context, tx *sql.Tx, d idrabbit.Delivery) error {
					_, err := tx.ExecContext(ctx, insert, d.Key, 0)
					return err
				})},
				{name: "bare-autocommit", proc: consume.AtLeastOnce(func(ctx context.Context, d idrabbit.Delivery) error {
					_, err := s.DB.ExecContext(ctx, insert, d.Key, 0)
					return err
				})},
				{name: "exactly-once-single", proc: consume.OnceTx(s.DB, s.Ledger, func(ctx context.Context, tx *sql.Tx, d idrabbit.Delivery) error {
					_, err := tx.ExecContext(ctx, insert, d.Key, 0)
					return err
				})},
				{name: "bare-batch", batch: consumetest.BareBatch(s.DB, func(ctx context.Context, tx *sql.Tx, d idrabbit.Delivery) error {
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
			conn := dial(b, url)
			for _, m := range modes {
				m.setUp(b, url, conn)
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

// benchMode is one consumer of BenchmarkConsume, on a queue of its own.
type benchMode struct {
	name    string
	proc    consume.Processor[idrabbit.Delivery]
	batch   consume.Batch[idrabbit.Delivery] // if set, the consumer is NewBatchConsumer's
	sizes   *consumetest.BatchSizes          // of batch, if set
	queue   string
	pub     *idrabbit.Publisher
	c       *idrabbit.Consumer
	elapsed time.Duration // consuming, summed over the turns
}

func (m *benchMode) setUp(b *testing.B, url string, conn *amqp.Connection) {
	m.queue = queueName(b, url, "bench")
	ch := channel(b, conn)
	if _, _, err := idrabbit.DeclareQueue(ch, m.queue, idrabbit.QueueOptions{}); err != nil {
		b.Fatal(err)
	}
	var err error
	if m.pub, err = idrabbit.NewPublisher(ch); err != nil {
		b.Fatal(err)
	}
	opts := idrabbit.Options{Queue: m.queue, Prefetch: 64, Concurrency: 8,
		OnError: func(d idrabbit.Delivery, err error) { b.Error(err) }}
	if m.batch != nil {
		m.c, err = idrabbit.NewBatchConsumer(conn, m.batch, opts)
	} else {
		m.c, err = idrabbit.NewConsumer(conn, m.proc, opts)
	}
	if err != nil {
		b.Fatal(err)
	}
}

// turn publishes messages from..from+n-1 (untimed) and consumes them.
func (m *benchMode) turn(b *testing.B, from, n int) {
	b.StopTimer()
	ctx := context.Background()
	confirms := make([]*amqp.DeferredConfirmation, 0, n)
	for i := from; i < from+n; i++ {
		dc, err := m.pub.PublishAsync(ctx, "", m.queue, m.name+strconv.Itoa(i), amqp.Publishing{Body: []byte("x")})
		if err != nil {
			b.Fatal(err)
		}
		confirms = append(confirms, dc)
	}
	for _, dc := range confirms {
		if ok, err := dc.WaitContext(ctx); !ok || err != nil {
			b.Fatalf("publish: confirmed %v, %v", ok, err)
		}
	}
	b.StartTimer()
	start := time.Now()
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- m.c.Run(runCtx) }()
	for m.c.Stats().Processed < int64(from+n) {
		time.Sleep(time.Millisecond)
	}
	m.elapsed += time.Since(start)
	cancel()
	if err := <-done; err != nil {
		b.Fatal(err)
	}
}
