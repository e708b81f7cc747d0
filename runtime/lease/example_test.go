package lease_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/idgen/idgen/runtime/lease"
	"github.com/idgen/idgen/runtime/snowflake"
	"github.com/idgen/idgen/runtime/sqldb"
)

// Three holders share worker IDs 0 and 1 (here in one process, through a Memory backend;
// across processes through NewSQL, redislease.New or etcdlease.New): the third waits its
// turn, and the ID it then takes over starts after the last one its previous holder
// issued.
func Example() {
	backend := lease.NewMemory()
	ctx := context.Background()
	// The backend is new: the first claim of each worker ID issues nothing until one TTL
	// after it (any holder a store that lost its data forgot has stopped by then), so
	// a.Next and b.WorkerID below each wait about a second.
	cfg := lease.Config{Layout: snowflake.Classic(), MaxWorker: 1, TTL: time.Second}
	a, err := lease.Acquire(ctx, backend, cfg)
	if err != nil {
		panic(err)
	}
	last, err := a.Next()
	if err != nil {
		panic(err)
	}
	parts, _ := cfg.Layout.Decode(last)
	fmt.Println("a issues as worker", parts.Worker)

	b, err := lease.Acquire(ctx, backend, cfg)
	if err != nil {
		panic(err)
	}
	defer b.Close(ctx)
	w, _ := b.WorkerID(ctx)
	fmt.Println("b holds worker", w)

	_, err = lease.Acquire(ctx, backend, cfg)
	fmt.Println(errors.Is(err, lease.ErrAllTaken), err)

	a.Close(ctx) // releases worker 0, recording the last tick a issued in
	c, err := lease.Acquire(ctx, backend, cfg)
	if err != nil {
		panic(err)
	}
	defer c.Close(ctx)
	id, err := c.Next()
	if err != nil {
		panic(err)
	}
	parts, _ = cfg.Layout.Decode(id)
	fmt.Println("c issues as worker", parts.Worker, "after a's last ID:", id > last)

	_, err = a.Next()
	fmt.Println(errors.Is(err, lease.ErrNotHeld), err)
	// Output:
	// a issues as worker 0
	// b holds worker 1
	// true lease: every worker ID in [0, 1] is held
	// c issues as worker 0 after a's last ID: true
	// true lease: worker ID 0 not held: lease: closed
}

// A backend shared by the fleet: a table in the database it already uses, created if
// missing, here PostgreSQL through pgx's database/sql driver (imported by the program as
// _ "github.com/jackc/pgx/v5/stdlib"). The Lease renews itself until Close.
func ExampleNewSQL() {
	db, err := sql.Open("pgx", os.Getenv("DATABASE_URL"))
	if err != nil {
		panic(err)
	}
	defer db.Close()
	backend, err := lease.NewSQL(db, sqldb.Postgres, lease.SQLOptions{}) // table idgen_lease
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	l, err := lease.Acquire(ctx, backend, lease.Config{Layout: snowflake.Classic(), TTL: 10 * time.Second})
	if err != nil {
		panic(err)
	}
	defer l.Close(ctx)
	id, err := l.NextContext(ctx)
	fmt.Println(id, err)
}
