package idrabbit_test

import (
	"context"
	"database/sql"
	"strconv"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/idgen/idgen/plugins/rabbitmq"
	"github.com/idgen/idgen/runtime/consume"
)

// BenchmarkConsume: b.N messages consumed from a quorum queue, each writing its effect row,
// exactly once (consume.OnceTx: the key and the row in one transaction) against bare
// consumers writing the same row (consume.InTx: the same handler in a plain transaction;
// consume.AtLeastOnce: the row autocommitted), on the same RabbitMQ and database, with
// Prefetch 64 and Concurrency 8. Publishing is not timed. Compare the msgs/s:
//
//	go test -run '^$' -bench Consume -benchtime 20000x -count 3
func BenchmarkConsume(b *testing.B) {
	url := amqpURL(b)
	for _, st := range stores {
		b.Run(st.name, func(b *testing.B) {
			s := st.open(b, "rabbit_bench_"+st.name)
			insert := insertEffect(s.dialect)
			for _, mode := range []struct {
				name string
				proc consume.Processor[idrabbit.Delivery]
			}{
				{"exactly-once", consume.OnceTx(s.db, s.ledger, func(ctx context.Context, tx *sql.Tx, d idrabbit.Delivery) error {
					_, err := tx.ExecContext(ctx, insert, d.Key, 0)
					return err
				})},
				{"bare-tx", consume.InTx(s.db, func(ctx context.Context, tx *sql.Tx, d idrabbit.Delivery) error {
					_, err := tx.ExecContext(ctx, insert, d.Key, 0)
					return err
				})},
				{"bare-autocommit", consume.AtLeastOnce(func(ctx context.Context, d idrabbit.Delivery) error {
					_, err := s.db.ExecContext(ctx, insert, d.Key, 0)
					return err
				})},
			} {
				b.Run(mode.name, func(b *testing.B) {
					benchConsume(b, url, s, mode.proc)
				})
			}
		})
	}
}

func benchConsume(b *testing.B, url string, s store, proc consume.Processor[idrabbit.Delivery]) {
	for _, table := range []string{"effects", "idgen_done"} {
		if _, err := s.db.Exec("DELETE FROM " + table); err != nil {
			b.Fatal(err)
		}
	}
	conn := dial(b, url)
	q := queueName(b, url, "bench")
	ch := channel(b, conn)
	if _, _, err := idrabbit.DeclareQueue(ch, q, idrabbit.QueueOptions{}); err != nil {
		b.Fatal(err)
	}
	pub, err := idrabbit.NewPublisher(ch)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	var window []*amqp.DeferredConfirmation
	for i := range b.N {
		dc, err := pub.PublishAsync(ctx, "", q, "b"+strconv.Itoa(i), amqp.Publishing{Body: []byte("x")})
		if err != nil {
			b.Fatal(err)
		}
		window = append(window, dc)
	}
	for _, dc := range window {
		if ok, err := dc.WaitContext(ctx); !ok || err != nil {
			b.Fatalf("publish: confirmed %v, %v", ok, err)
		}
	}
	c, err := idrabbit.NewConsumer(conn, proc, idrabbit.Options{Queue: q, Prefetch: 64, Concurrency: 8,
		OnError: func(d idrabbit.Delivery, err error) { b.Error(err) }})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	start := time.Now()
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- c.Run(runCtx) }()
	for c.Stats().Processed < int64(b.N) {
		time.Sleep(time.Millisecond)
	}
	elapsed := time.Since(start)
	b.StopTimer()
	cancel()
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "msgs/s")
}
