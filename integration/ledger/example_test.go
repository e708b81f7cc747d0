package ledger_test

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	_ "modernc.org/sqlite"

	"github.com/idgen/idgen/runtime/ledger"
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
	dl, err := ledger.New(ledger.SQLite, ledger.Options{TTL: 7 * 24 * time.Hour})
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
