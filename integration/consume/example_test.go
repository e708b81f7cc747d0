package consume_test

import (
	"context"
	"database/sql"
	"fmt"

	_ "modernc.org/sqlite"

	"github.com/idgen/idgen/runtime/consume"
	"github.com/idgen/idgen/runtime/ledger"
	"github.com/idgen/idgen/runtime/sqldb"
)

// order is the message type of the examples; an adapter passes its own Delivery.
type order struct {
	No    string
	Cents int
}

// OnceTx as an adapter runs it: the message and its redelivery, one row.
func ExampleOnceTx() {
	db, err := sql.Open("sqlite", "file:consume-example?mode=memory&cache=shared")
	if err != nil {
		panic(err)
	}
	defer db.Close()
	ctx := context.Background()
	dl, err := ledger.New(sqldb.SQLite, ledger.Options{})
	if err != nil {
		panic(err)
	}
	if err := dl.CreateTable(ctx, db); err != nil {
		panic(err)
	}
	if _, err := db.Exec("CREATE TABLE orders (no TEXT, cents INTEGER)"); err != nil {
		panic(err)
	}
	process := consume.OnceTx(db, dl, func(ctx context.Context, tx *sql.Tx, o order) error {
		_, err := tx.ExecContext(ctx, "INSERT INTO orders VALUES (?, ?)", o.No, o.Cents)
		return err
	})
	var stats consume.Stats
	for range 2 { // the message and its redelivery
		ran, err := process(ctx, "msg-7", order{"ORD-7", 1999})
		if err != nil {
			panic(err) // an adapter requeues the message
		}
		if ran {
			stats.Delivered(consume.Processed, false)
		} else {
			stats.Delivered(consume.Duplicate, true)
		}
	}
	var n int
	db.QueryRow("SELECT count(*) FROM orders").Scan(&n)
	fmt.Printf("%d row, %+v\n", n, stats.Counts())
	// Output:
	// 1 row, {Processed:1 Duplicate:1 Failed:0 DeadLettered:0 NoKey:0 Paused:0 Redelivered:1}
}

// OnceTxBatch as an adapter runs it: three messages in one transaction, one of them a
// second copy in the same batch, then a batch with a key already done.
func ExampleOnceTxBatch() {
	db, err := sql.Open("sqlite", "file:consume-batch-example?mode=memory&cache=shared")
	if err != nil {
		panic(err)
	}
	defer db.Close()
	ctx := context.Background()
	dl, err := ledger.New(sqldb.SQLite, ledger.Options{})
	if err != nil {
		panic(err)
	}
	if err := dl.CreateTable(ctx, db); err != nil {
		panic(err)
	}
	if _, err := db.Exec("CREATE TABLE orders (no TEXT, cents INTEGER)"); err != nil {
		panic(err)
	}
	batch := consume.OnceTxBatch(db, dl, func(ctx context.Context, tx *sql.Tx, o order) error {
		_, err := tx.ExecContext(ctx, "INSERT INTO orders VALUES (?, ?)", o.No, o.Cents)
		return err
	})
	ran, err := batch(ctx, []string{"msg-1", "msg-2", "msg-1"}, []order{{"ORD-1", 100}, {"ORD-2", 200}, {"ORD-1", 100}})
	fmt.Println(ran, err) // an adapter acknowledges all three after this
	ran, err = batch(ctx, []string{"msg-2", "msg-3"}, []order{{"ORD-2", 200}, {"ORD-3", 300}})
	fmt.Println(ran, err)
	var n int
	db.QueryRow("SELECT count(*) FROM orders").Scan(&n)
	fmt.Println(n, "rows")
	// Output:
	// [true true false] <nil>
	// [false true] <nil>
	// 3 rows
}
