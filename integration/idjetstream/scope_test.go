package idjetstream_test

import (
	"context"
	"database/sql"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/idgen/idgen/integration/internal/consumetest"
	"github.com/idgen/idgen/plugins/idjetstream"
	"github.com/idgen/idgen/runtime/consume"
)

// TestStreamsShareLedger: two streams carry messages with the same IDs, and their
// consumers (durables of one name on each) record keys in one ledger with the default
// table: every message of each stream has its effect once, and none is taken for a
// duplicate of the other stream's.
func TestStreamsShareLedger(t *testing.T) {
	url := natsURL(t)
	s := consumetest.Kinds()[0].Open(t, "jetstream_scope")
	_, js := connect(t, url)
	ctx := context.Background()
	const n = 50
	var consumers []*idjetstream.Consumer
	var streams []jetstream.Consumer
	for si, what := range []string{"webhooks", "payments"} {
		str, subject := stream(t, js, what, jetstream.StreamConfig{})
		for i := range n {
			if _, err := idjetstream.Publish(ctx, js, subject, fmt.Sprintf("m%d", i), []byte("x")); err != nil {
				t.Fatal(err)
			}
		}
		cons, err := str.CreateOrUpdateConsumer(ctx, consumerConfig("workers", 30*time.Second, 5))
		if err != nil {
			t.Fatal(err)
		}
		insert := s.Insert()
		c, err := idjetstream.NewConsumer(js, cons, consume.OnceTx(s.DB, s.Ledger, func(ctx context.Context, tx *sql.Tx, d idjetstream.Delivery) error {
			_, err := tx.ExecContext(ctx, insert, d.Key, si) // pid: which stream
			return err
		}), idjetstream.Options{})
		if err != nil {
			t.Fatal(err)
		}
		consumers, streams = append(consumers, c), append(streams, cons)
		run(t, c)
	}
	waitFor(t, "both streams drained", func() bool {
		for _, cons := range streams {
			info, err := cons.Info(ctx)
			if err != nil || info.NumPending != 0 || info.NumAckPending != 0 {
				return false
			}
		}
		return true
	})
	for i, c := range consumers {
		if got := c.Stats(); got.Processed != n || got.Duplicate != 0 {
			t.Errorf("stream %d: %d processed, %d taken for duplicates; want %d and 0", i, got.Processed, got.Duplicate, n)
		}
	}
	var rows, distinct int
	if err := s.DB.QueryRow("SELECT count(*), count(DISTINCT msg_key || ':' || pid) FROM effects").Scan(&rows, &distinct); err != nil {
		t.Fatal(err)
	}
	if rows != 2*n || distinct != 2*n {
		t.Errorf("%d effect rows, %d distinct (message, stream); want %d of each", rows, distinct, 2*n)
	}
}
