package idgent_test

import (
	"context"
	"database/sql"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	_ "modernc.org/sqlite"

	"github.com/idgen/idgen"
	"github.com/idgen/idgen/examples/ent/ent"
	_ "github.com/idgen/idgen/examples/ent/ent/runtime" // required: registers the idgen hooks
	"github.com/idgen/idgen/runtime/snowflake"
)

// The examples' Order schema uses idgent.ID, idgent.Number and idgent.Idempotent (see
// examples/ent/ent/schema/order.go): a create gets an ID and an order number, and
// CreateOrGet turns the retry of a request into the order the first attempt made.
func ExampleIdempotent() {
	dir, err := os.MkdirTemp("", "idgent-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	gen, err := snowflake.New(snowflake.Classic(), 7, snowflake.Options{})
	if err != nil {
		log.Fatal(err)
	}
	idgen.SetDefault(gen)
	defer idgen.SetDefault(nil)

	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "shop.db")+"?_pragma=foreign_keys(1)")
	if err != nil {
		log.Fatal(err)
	}
	client := ent.NewClient(ent.Driver(entsql.OpenDB(dialect.SQLite, db)))
	defer client.Close()
	ctx := context.Background()
	if err := client.Schema.Create(ctx); err != nil {
		log.Fatal(err)
	}

	var first *ent.Order
	for attempt := 1; attempt <= 2; attempt++ {
		o, created, err := client.Order.Create().SetRequestID("req-91c2").SetCents(1999).CreateOrGet(ctx)
		if err != nil {
			log.Fatal(err)
		}
		if created {
			first = o
		}
		parts, _ := o.No.Parts()
		fmt.Println("attempt", attempt, "created:", created, "same order:", o.ID == first.ID, "worker", parts.Worker)
	}
	fmt.Println("orders:", client.Order.Query().CountX(ctx))
	// Output:
	// attempt 1 created: true same order: true worker 7
	// attempt 2 created: false same order: true worker 7
	// orders: 1
}
