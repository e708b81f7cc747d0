package consume_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"

	"github.com/idgen/idgen/runtime/consume"
	"github.com/idgen/idgen/runtime/idem"
	"github.com/idgen/idgen/runtime/ledger"
	"github.com/idgen/idgen/runtime/sqldb"
)

// order is the message type of the examples; an adapter passes its own Delivery.
type order struct {
	No    string
	Cents int
}

// Once for an effect outside the database, here a line printed: the key is claimed in an
// idem.Store (here in memory; idem.NewSQL or redisidem across processes) and marked done
// after the effect, so the redelivery does not repeat it.
func ExampleOnce() {
	store := idem.NewMemory()
	process := consume.Once(store, func(ctx context.Context, o order) error {
		fmt.Println("mail about", o.No)
		return nil
	}, idem.OnceOptions{})
	var stats consume.Stats
	for range 2 { // the message and its redelivery
		ran, err := process(context.Background(), "msg-8", order{"ORD-8", 500})
		if err != nil {
			panic(err) // an adapter requeues the message
		}
		if ran {
			stats.Delivered(consume.Processed, false)
		} else {
			stats.Delivered(consume.Duplicate, true)
		}
		fmt.Println("ran:", ran)
	}
	fmt.Printf("%+v\n", stats.Counts())
	// Output:
	// mail about ORD-8
	// ran: true
	// ran: false
	// {Processed:1 Duplicate:1 Failed:0 DeadLettered:0 NoKey:0 Paused:0 Redelivered:1}
}

// OnceTx for an effect that is rows in a SQL database, here PostgreSQL through pgx's
// database/sql driver (imported by the program as _ "github.com/jackc/pgx/v5/stdlib"):
// the message key and the rows commit in one transaction, or neither does.
func ExampleOnceTx() {
	db, err := sql.Open("pgx", os.Getenv("DATABASE_URL"))
	if err != nil {
		panic(err)
	}
	defer db.Close()
	ctx := context.Background()
	dl, err := ledger.New(sqldb.Postgres, ledger.Options{}) // table idgen_ledger
	if err != nil {
		panic(err)
	}
	if err := dl.CreateTable(ctx, db); err != nil {
		panic(err)
	}
	process := consume.OnceTx(db, dl, func(ctx context.Context, tx *sql.Tx, o order) error {
		_, err := tx.ExecContext(ctx, "INSERT INTO orders (no, cents) VALUES ($1, $2)", o.No, o.Cents)
		return err
	})
	ran, err := process(ctx, "msg-7", order{"ORD-7", 1999}) // false, nil for a redelivery
	fmt.Println(ran, err)
}

// Batches gathers what arrived while the workers were busy, never waiting to fill a
// batch: how the values split depends on timing, but none is lost, none is repeated, and
// no batch exceeds the size.
func ExampleBatches() {
	in := make(chan int, 7)
	for i := range 7 {
		in <- i
	}
	close(in)
	n, largest := 0, 0
	for batch := range consume.Batches(in, 3) {
		n += len(batch)
		largest = max(largest, len(batch))
	}
	fmt.Println(n, "values; largest batch within 3:", largest <= 3)
	// Output:
	// 7 values; largest batch within 3: true
}
