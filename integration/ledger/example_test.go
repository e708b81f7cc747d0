package ledger_test

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	_ "modernc.org/sqlite"

	"github.com/idgen/idgen/runtime/ledger"
	"github.com/idgen/idgen/runtime/sqldb"
)

// OnceTx for a consumer whose effect is a row in the same database: the message key and
// the row commit together, so a redelivery finds the key and writes nothing.
func ExampleOnceTx() {
	db, err := sql.Open("sqlite", "file:ledger-example?mode=memory&cache=shared")
	if err != nil {
		panic(err)
	}
	defer db.Close()
	ctx := context.Background()
	dl, err := ledger.New(sqldb.SQLite, ledger.Options{TTL: 7 * 24 * time.Hour})
	if err != nil {
		panic(err)
	}
	if err := dl.CreateTable(ctx, db); err != nil {
		panic(err)
	}
	if _, err := db.Exec("CREATE TABLE charges (msg TEXT, cents INTEGER)"); err != nil {
		panic(err)
	}
	charge := func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, "INSERT INTO charges VALUES ('msg-42', 1999)")
		return err
	}
	for range 2 { // the message and its redelivery
		ran, err := ledger.OnceTx(ctx, db, dl, "msg-42", charge)
		fmt.Println(ran, err)
	}
	var n int
	db.QueryRow("SELECT count(*) FROM charges").Scan(&n)
	fmt.Println(n, "charge")
	// Output:
	// true <nil>
	// false <nil>
	// 1 charge
}

// Record in a transaction of your own: the key commits with the work, or neither does.
func ExampleLedger_Record() {
	db, err := sql.Open("sqlite", "file:ledger-record-example?mode=memory&cache=shared")
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
	if _, err := db.Exec("CREATE TABLE shipments (msg TEXT)"); err != nil {
		panic(err)
	}
	ship := func(msgID string) error {
		// Retry runs the transaction again if the database aborted it for contention.
		return ledger.Retry(ctx, func() error {
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				return err
			}
			defer tx.Rollback()
			first, err := dl.Record(ctx, tx, msgID)
			if err != nil {
				return err
			}
			fmt.Println(msgID, "first:", first)
			if !first {
				return nil // done before: nothing to commit, acknowledge the message
			}
			if _, err := tx.ExecContext(ctx, "INSERT INTO shipments VALUES (?)", msgID); err != nil {
				return err
			}
			return tx.Commit()
		})
	}
	for _, id := range []string{"m1", "m2", "m1"} {
		if err := ship(id); err != nil {
			panic(err)
		}
	}
	// Output:
	// m1 first: true
	// m2 first: true
	// m1 first: false
}

// OnceTxBatch for a batch of messages in one transaction: the new ones run, a message
// given twice or done before does not.
func ExampleOnceTxBatch() {
	db, err := sql.Open("sqlite", "file:ledger-batch-example?mode=memory&cache=shared")
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
	if _, err := db.Exec("CREATE TABLE charges (msg TEXT)"); err != nil {
		panic(err)
	}
	for _, batch := range [][]string{{"m1", "m2", "m1"}, {"m2", "m3"}} {
		ran, err := ledger.OnceTxBatch(ctx, db, dl, batch, func(ctx context.Context, tx *sql.Tx, i int) error {
			_, err := tx.ExecContext(ctx, "INSERT INTO charges VALUES (?)", batch[i])
			return err
		})
		fmt.Println(batch, ran, err)
	}
	// Output:
	// [m1 m2 m1] [true true false] <nil>
	// [m2 m3] [false true] <nil>
}
