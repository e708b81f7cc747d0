package idotel_test

import (
	"context"
	"database/sql"
	"errors"
	"testing"

	"go.opentelemetry.io/otel/attribute"

	"github.com/idgen/idgen/plugins/idotel"
	"github.com/idgen/idgen/runtime/consume"
	"github.com/idgen/idgen/runtime/ledger"
	"github.com/idgen/idgen/runtime/sqldb"
)

// TestConsumer runs consume.OnceTx on SQLite as a broker adapter does and reports each
// delivery's outcome: a message, its redelivery (a duplicate), a failing message twice and
// then dead-lettered, and a message without a key.
func TestConsumer(t *testing.T) {
	m := newMeter(t)
	obs, err := idotel.NewConsumer(m.opts)
	if err != nil {
		t.Fatal(err)
	}
	db := openSQLite(t)
	ctx := context.Background()
	dl, err := ledger.New(sqldb.SQLite, ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := dl.CreateTable(ctx, db); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE orders (no TEXT NOT NULL)"); err != nil {
		t.Fatal(err)
	}
	errPoison := errors.New("poison (test)")
	process := consume.OnceTx(db, dl, func(ctx context.Context, tx *sql.Tx, no string) error {
		if no == "poison" {
			return errPoison
		}
		_, err := tx.ExecContext(ctx, "INSERT INTO orders VALUES (?)", no)
		return err
	})
	// deliver is what an adapter does with a delivery: process, then report the outcome.
	deliver := func(key, no string, redelivered, last bool) {
		ran, err := process(ctx, key, no)
		switch {
		case err != nil && last:
			obs.Delivered(consume.DeadLettered, redelivered)
		case err != nil:
			obs.Delivered(consume.Failed, redelivered)
		case ran:
			obs.Delivered(consume.Processed, redelivered)
		default:
			obs.Delivered(consume.Duplicate, redelivered)
		}
	}
	deliver("m1", "ORD-1", false, false)
	deliver("m1", "ORD-1", true, false) // redelivered after a lost ack
	deliver("m2", "poison", false, false)
	deliver("m2", "poison", true, false)
	deliver("m2", "poison", true, true)
	obs.Delivered(consume.NoKey, false) // an adapter never processes it

	c := m.collect(t)
	c.unit(t, "idgen.consumer.messages", "{message}")
	outcome, redelivered := idotel.ConsumerOutcomeKey.String, idotel.ConsumerRedeliveredKey.Bool
	for _, tc := range []struct {
		attrs []attribute.KeyValue
		want  int64
	}{
		{nil, 6},
		{[]attribute.KeyValue{outcome("processed")}, 1},
		{[]attribute.KeyValue{outcome("duplicate"), redelivered(true)}, 1},
		{[]attribute.KeyValue{outcome("failed")}, 2},
		{[]attribute.KeyValue{outcome("failed"), redelivered(true)}, 1},
		{[]attribute.KeyValue{outcome("dead_lettered")}, 1},
		{[]attribute.KeyValue{outcome("no_key")}, 1},
		{[]attribute.KeyValue{redelivered(true)}, 3},
	} {
		if got := c.sum(t, "idgen.consumer.messages", tc.attrs...); got != tc.want {
			t.Errorf("idgen.consumer.messages%v = %d, want %d", tc.attrs, got, tc.want)
		}
	}
	var rows int
	if err := db.QueryRow("SELECT count(*) FROM orders").Scan(&rows); err != nil || rows != 1 {
		t.Errorf("orders: %d rows (%v), want 1", rows, err)
	}
}
