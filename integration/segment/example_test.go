package segment_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"

	_ "modernc.org/sqlite"

	"github.com/idgen/idgen"
	"github.com/idgen/idgen/runtime/segment"
	"github.com/idgen/idgen/runtime/sqldb"
)

// Two allocators of one tag (two processes, say) share a SQLite file: each serves its own
// block of 10, so their IDs never collide, and each hands its IDs out in order. Another
// tag counts on its own.
func Example() {
	dir, err := os.MkdirTemp("", "segment-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "ids.db")+"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)")
	if err != nil {
		panic(err)
	}
	defer db.Close()
	store, err := segment.NewSQL(db, sqldb.SQLite, segment.SQLOptions{}) // table idgen_segment, created if missing
	if err != nil {
		panic(err)
	}

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
