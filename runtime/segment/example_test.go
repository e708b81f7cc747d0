package segment_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"

	"github.com/idgen/idgen"
	"github.com/idgen/idgen/runtime/segment"
	"github.com/idgen/idgen/runtime/sqldb"
)

// Two allocators of one tag (two processes, say) share a store: each serves its own block
// of 10, so their IDs never collide, and each hands its IDs out in order. Another tag
// counts on its own. Here the store is a Memory; across processes it is NewSQL's table.
func Example() {
	store := segment.NewMemory()
	ctx := context.Background()
	opts := segment.Options{Step: 10, MinStep: 10, MaxStep: 10}
	a, err := segment.New(store, "order", opts)
	if err != nil {
		panic(err)
	}
	b, err := segment.New(store, "order", opts)
	if err != nil {
		panic(err)
	}
	x, err := a.NextInt64(ctx) // reserves 1..10
	if err != nil {
		panic(err)
	}
	y, err := b.NextInt64(ctx) // reserves 11..20
	if err != nil {
		panic(err)
	}
	more, err := a.NextN(ctx, 3)
	if err != nil {
		panic(err)
	}
	fmt.Println("a:", x, more)
	fmt.Println("b:", y)

	// An Allocator is an idgen.Source, for the plugins and generated types.
	payments, err := segment.New(store, "payment", opts)
	if err != nil {
		panic(err)
	}
	var src idgen.Source = payments
	p, err := idgen.Next(ctx, src)
	if err != nil {
		panic(err)
	}
	fmt.Println("payment:", p)
	// Output:
	// a: 1 [2 3 4]
	// b: 11
	// payment: 1
}

// A store shared by processes: a table in the database they already use, created if
// missing, here PostgreSQL through pgx's database/sql driver (imported by the program as
// _ "github.com/jackc/pgx/v5/stdlib").
func ExampleNewSQL() {
	db, err := sql.Open("pgx", os.Getenv("DATABASE_URL"))
	if err != nil {
		panic(err)
	}
	defer db.Close()
	store, err := segment.NewSQL(db, sqldb.Postgres, segment.SQLOptions{}) // table idgen_segment
	if err != nil {
		panic(err)
	}
	orders, err := segment.New(store, "order", segment.Options{})
	if err != nil {
		panic(err)
	}
	id, err := orders.NextInt64(context.Background())
	fmt.Println(id, err)
}
