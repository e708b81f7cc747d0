package idgent_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"

	"entgo.io/ent"

	"github.com/idgen/idgen/plugins/idgent"
	"github.com/idgen/idgen/runtime/ledger"
	"github.com/idgen/idgen/runtime/snowflake"
	"github.com/idgen/idgen/runtime/sqldb"
)

// Order is an ent schema whose int64 id is filled on create from a snowflake generator
// (nil would use idgen.Default()); entc generates the client from it as from any schema.
type Order struct{ ent.Schema }

// gen is the generator of worker 7 the schema's IDs come from.
var gen, _ = snowflake.New(snowflake.Classic(), 7, snowflake.Options{})

// Mixin gives Order its id field and the hook that fills it.
func (Order) Mixin() []ent.Mixin { return []ent.Mixin{idgent.ID(gen)} }

// The mixin declares the field ent generates the setter for, and a create hook that
// sets it when the create did not.
func ExampleID() {
	for _, m := range (Order{}).Mixin() {
		for _, f := range m.Fields() {
			d := f.Descriptor()
			fmt.Println(d.Name, d.Info.Type, "immutable:", d.Immutable)
		}
		fmt.Println(len(m.Hooks()), "hook")
	}
	// Output:
	// id int64 immutable: true
	// 1 hook
}

// OnceTx runs a message's effect and records its key in one transaction; here the
// transaction is database/sql's on PostgreSQL (through pgx's driver, imported by the
// program as _ "github.com/jackc/pgx/v5/stdlib"), with ent it is the generated client's
// Tx. It needs a database, so it is compiled, not run.
func ExampleOnceTx() {
	db, err := sql.Open("pgx", os.Getenv("DATABASE_URL"))
	if err != nil {
		panic(err)
	}
	defer db.Close()
	ctx := context.Background()
	l, err := ledger.New(sqldb.Postgres, ledger.Options{})
	if err != nil {
		panic(err)
	}
	begin := func(ctx context.Context) (*sql.Tx, error) { return db.BeginTx(ctx, nil) }
	ran, err := idgent.OnceTx(ctx, begin, l, "msg-42", func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, "INSERT INTO orders (request_id, cents) VALUES ($1, $2)", "msg-42", 1999)
		return err
	})
	fmt.Println(ran, err) // false, nil when msg-42 was recorded before
}
