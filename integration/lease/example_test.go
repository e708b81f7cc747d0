package lease_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	_ "modernc.org/sqlite"

	"github.com/idgen/idgen/runtime/lease"
	"github.com/idgen/idgen/runtime/snowflake"
	"github.com/idgen/idgen/runtime/sqldb"
)

// Three processes (here three leases in one) share worker IDs 0 and 1 through a SQLite
// file; the third waits its turn, and the ID it then takes over starts after the last one
// its previous holder issued.
func Example() {
	dir, err := os.MkdirTemp("", "lease-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "leases.db")+"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)")
	if err != nil {
		panic(err)
	}
	defer db.Close()
	backend, err := lease.NewSQL(db, sqldb.SQLite, lease.SQLOptions{}) // table idgen_lease, created if missing
	if err != nil {
		panic(err)
	}

	ctx := context.Background()
	// The table is new: the first claim of each worker ID issues nothing until one TTL
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
