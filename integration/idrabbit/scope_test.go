package idrabbit_test

import (
	"context"
	"database/sql"
	"fmt"
	"testing"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/idgen/idgen/integration/internal/consumetest"
	"github.com/idgen/idgen/plugins/idrabbit"
	"github.com/idgen/idgen/runtime/consume"
)

// TestQueuesShareLedger: two queues (webhooks, payments) carry messages with the same IDs,
// and their consumers record keys in one ledger with the default table: every message of
// each queue has its effect once, and none is taken for a duplicate of the other queue's.
func TestQueuesShareLedger(t *testing.T) {
	url := amqpURL(t)
	s := consumetest.Kinds()[0].Open(t, "rabbit_scope")
	conn := dial(t, url)
	const n = 50
	queues := []string{queueName(t, url, "webhooks"), queueName(t, url, "payments")}
	pub, err := idrabbit.NewPublisher(channel(t, conn))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var consumers []*idrabbit.Consumer
	for qi, q := range queues {
		if _, _, err := idrabbit.DeclareQueue(channel(t, conn), q, idrabbit.QueueOptions{}); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			if err := pub.Publish(ctx, "", q, fmt.Sprintf("m%d", i), amqp.Publishing{Body: []byte("x")}); err != nil {
				t.Fatal(err)
			}
		}
		insert := s.Insert()
		c, err := idrabbit.NewConsumer(conn, consume.OnceTx(s.DB, s.Ledger, func(ctx context.Context, tx *sql.Tx, d idrabbit.Delivery) error {
			_, err := tx.ExecContext(ctx, insert, d.Key, qi) // pid: which queue
			return err
		}), idrabbit.Options{Queue: q})
		if err != nil {
			t.Fatal(err)
		}
		consumers = append(consumers, c)
		run(t, c)
	}
	waitFor(t, "both queues drained", func() bool {
		var done int64
		for _, c := range consumers {
			n := c.Stats()
			done += n.Processed + n.Duplicate + n.Failed + n.DeadLettered
		}
		return done == 2*n
	})
	for i, c := range consumers {
		if got := c.Stats(); got.Processed != n || got.Duplicate != 0 {
			t.Errorf("queue %d: %d processed, %d taken for duplicates; want %d and 0", i, got.Processed, got.Duplicate, n)
		}
	}
	var rows, distinct int
	if err := s.DB.QueryRow("SELECT count(*), count(DISTINCT msg_key || ':' || pid) FROM effects").Scan(&rows, &distinct); err != nil {
		t.Fatal(err)
	}
	if rows != 2*n || distinct != 2*n {
		t.Errorf("%d effect rows, %d distinct (message, queue); want %d of each", rows, distinct, 2*n)
	}
}
