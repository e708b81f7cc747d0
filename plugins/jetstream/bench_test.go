package idjetstream_test

import (
	"context"
	"database/sql"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/idgen/idgen/plugins/jetstream"
	"github.com/idgen/idgen/runtime/consume"
)

// BenchmarkConsume: b.N messages consumed from a file-backed stream, each writing its
// effect row, exactly once (consume.OnceTx: the key and the row in one transaction) against
// bare consumers writing the same row (consume.InTx: the same handler in a plain
// transaction; consume.AtLeastOnce: the row autocommitted), on the same NATS server and
// database, with Prefetch 64 and Concurrency 8. Publishing is not timed. Compare the msgs/s:
//
//	go test -run '^$' -bench Consume -benchtime 20000x -count 3
func BenchmarkConsume(b *testing.B) {
	url := natsURL(b)
	for _, st := range stores {
		b.Run(st.name, func(b *testing.B) {
			s := st.open(b, "jetstream_bench_"+st.name)
			insert := insertEffect(s.dialect)
			for _, mode := range []struct {
				name string
				proc consume.Processor[idjetstream.Delivery]
			}{
				{"exactly-once", consume.OnceTx(s.db, s.ledger, func(ctx context.Context, tx *sql.Tx, d idjetstream.Delivery) error {
					_, err := tx.ExecContext(ctx, insert, d.Key, 0)
					return err
				})},
				{"bare-tx", consume.InTx(s.db, func(ctx context.Context, tx *sql.Tx, d idjetstream.Delivery) error {
					_, err := tx.ExecContext(ctx, insert, d.Key, 0)
					return err
				})},
				{"bare-autocommit", consume.AtLeastOnce(func(ctx context.Context, d idjetstream.Delivery) error {
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

func benchConsume(b *testing.B, url string, s store, proc consume.Processor[idjetstream.Delivery]) {
	for _, table := range []string{"effects", "idgen_done"} {
		if _, err := s.db.Exec("DELETE FROM " + table); err != nil {
			b.Fatal(err)
		}
	}
	_, js := connect(b, url)
	str, subject := stream(b, js, "bench", jetstream.StreamConfig{})
	ctx := context.Background()
	var window []jetstream.PubAckFuture
	for i := range b.N {
		f, err := idjetstream.PublishAsync(js, subject, "b"+strconv.Itoa(i), []byte("x"))
		if err != nil {
			b.Fatal(err)
		}
		window = append(window, f)
		if len(window) == 1000 {
			for _, f := range window {
				select {
				case <-f.Ok():
				case err := <-f.Err():
					b.Fatal(err)
				}
			}
			window = window[:0]
		}
	}
	for _, f := range window {
		select {
		case <-f.Ok():
		case err := <-f.Err():
			b.Fatal(err)
		}
	}
	cons, err := str.CreateOrUpdateConsumer(ctx, consumerConfig("bench", 30*time.Second, 5))
	if err != nil {
		b.Fatal(err)
	}
	c, err := idjetstream.NewConsumer(js, cons, proc, idjetstream.Options{Prefetch: 64, Concurrency: 8,
		OnError: func(d idjetstream.Delivery, err error) { b.Error(err) }})
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
