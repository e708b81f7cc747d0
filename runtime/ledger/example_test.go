package ledger_test

import (
	"fmt"

	"github.com/idgen/idgen/runtime/ledger"
	"github.com/idgen/idgen/runtime/sqldb"
)

// The table a Ledger records keys in, for your migrations (or CreateTable at start).
func ExampleLedger_Schema() {
	l, err := ledger.New(sqldb.Postgres, ledger.Options{})
	if err != nil {
		panic(err)
	}
	for _, stmt := range l.Schema() {
		fmt.Println(stmt + ";")
	}
	// Output:
	// CREATE TABLE IF NOT EXISTS idgen_done (
	// 	key        bytea  NOT NULL PRIMARY KEY,
	// 	expires_at bigint NOT NULL
	// );
	// CREATE INDEX IF NOT EXISTS idgen_done_expires_at ON idgen_done (expires_at);
}
