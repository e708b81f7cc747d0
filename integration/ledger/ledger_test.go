package ledger_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idgen/idgen/runtime/ledger"
)

// ledgerDB returns a fresh database of b with a ledger's table and an effects table
// (msg_key unique), where the work of a message inserts one row.
func ledgerDB(t *testing.T, b sqlBackend, name string) (*sql.DB, *ledger.Ledger) {
	t.Helper()
	if b.env != "" && os.Getenv(b.env) == "" {
		t.Skip("set " + b.env + " to run against " + b.name)
	}
	db := b.open(t, b.dsn(t, name))
	l, err := ledger.New(b.dialect, ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := l.CreateTable(ctx, db); err != nil {
		t.Fatal(err)
	}
	// No unique index on the effect: only the ledger keeps it from running twice.
	if _, err := db.ExecContext(ctx, "CREATE TABLE effects (msg_key varchar(64) NOT NULL, cents bigint NOT NULL)"); err != nil {
		t.Fatal(err)
	}
	return db, l
}

// effect is a message's work: one row in effects, in the transaction.
func effect(key string) func(context.Context, *sql.Tx) error {
	return func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, "INSERT INTO effects (msg_key, cents) VALUES ('"+key+"', 100)")
		return err
	}
}

func countEffects(t *testing.T, db *sql.DB, key string) int {
	t.Helper()
	var n int
	q := "SELECT count(*) FROM effects"
	if key != "" {
		q += " WHERE msg_key = '" + key + "'"
	}
	if err := db.QueryRow(q).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestLedger(t *testing.T) {
	ctx := context.Background()
	for _, b := range sqlBackends {
		t.Run(b.name, func(t *testing.T) {
			db, l := ledgerDB(t, b, "ledger_ledger")
			t.Run("once, then done", func(t *testing.T) {
				for i, want := range []bool{true, false, false} {
					ran, err := ledger.OnceTx(ctx, db, l, "m1", effect("m1"))
					if err != nil || ran != want {
						t.Fatalf("delivery %d: ran=%v %v, want ran=%v", i, ran, err, want)
					}
				}
				if n := countEffects(t, db, "m1"); n != 1 {
					t.Errorf("%d effects, want 1", n)
				}
			})
			t.Run("a failure records nothing", func(t *testing.T) {
				boom := errors.New("boom")
				ran, err := ledger.OnceTx(ctx, db, l, "m2", func(ctx context.Context, tx *sql.Tx) error {
					effect("m2")(ctx, tx)
					return boom
				})
				if ran || !errors.Is(err, boom) {
					t.Fatalf("failing work: ran=%v %v", ran, err)
				}
				if ran, err := ledger.OnceTx(ctx, db, l, "m2", effect("m2")); !ran || err != nil {
					t.Fatalf("redelivery after a failure: ran=%v %v", ran, err)
				}
				if n := countEffects(t, db, "m2"); n != 1 {
					t.Errorf("%d effects, want 1", n)
				}
			})
			t.Run("the caller's transaction survives a done key", func(t *testing.T) {
				tx, err := db.BeginTx(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				defer tx.Rollback()
				first, err := l.Record(ctx, tx, "m1")
				if err != nil || first {
					t.Fatalf("Record of a done key: %v %v", first, err)
				}
				if first, err := l.Record(ctx, tx, "m3"); err != nil || !first {
					t.Fatalf("Record after a done key, same transaction: %v %v", first, err)
				}
				if err := effect("m3")(ctx, tx); err != nil {
					t.Fatalf("the transaction is unusable after a done key: %v", err)
				}
				if err := tx.Commit(); err != nil {
					t.Fatal(err)
				}
			})
			t.Run("50 deliveries of one message at once", func(t *testing.T) {
				var ran atomic.Int64
				var wg sync.WaitGroup
				start := make(chan struct{})
				for range 50 {
					wg.Go(func() {
						<-start
						r, err := ledger.OnceTx(ctx, db, l, "m4", effect("m4"))
						if err != nil {
							t.Error(err)
						}
						if r {
							ran.Add(1)
						}
					})
				}
				close(start)
				wg.Wait()
				if ran.Load() != 1 || countEffects(t, db, "m4") != 1 {
					t.Errorf("%d ran, %d effects; want 1, 1", ran.Load(), countEffects(t, db, "m4"))
				}
			})
			t.Run("300 messages, each delivered 3 times by 8 consumers", func(t *testing.T) {
				const msgs = 300
				work := make(chan string, 3*msgs)
				for r := range 3 {
					for i := range msgs {
						work <- fmt.Sprintf("b%d-%d", i, r*0)
					}
				}
				close(work)
				var wg sync.WaitGroup
				for range 8 {
					wg.Go(func() {
						for k := range work {
							if _, err := ledger.OnceTx(ctx, db, l, k, effect(k)); err != nil {
								t.Error(err)
							}
						}
					})
				}
				wg.Wait()
				var n, distinct int
				db.QueryRow("SELECT count(*), count(DISTINCT msg_key) FROM effects WHERE msg_key LIKE 'b%'").Scan(&n, &distinct)
				if n != msgs || distinct != msgs {
					t.Errorf("%d effects for %d distinct messages, want %d each", n, distinct, msgs)
				}
			})
			t.Run("a key past its TTL runs again, and is purged", func(t *testing.T) {
				now := time.Now()
				short, err := ledger.New(b.dialect, ledger.Options{TTL: time.Hour, Now: func() time.Time { return now }})
				if err != nil {
					t.Fatal(err)
				}
				if ran, _ := ledger.OnceTx(ctx, db, short, "m5", effect("m5")); !ran {
					t.Fatal("first delivery did not run")
				}
				now = now.Add(2 * time.Hour)
				if ran, err := ledger.OnceTx(ctx, db, short, "m5", effect("m5")); !ran || err != nil {
					t.Fatalf("delivery past the TTL: ran=%v %v", ran, err)
				}
				now = now.Add(2 * time.Hour)
				if n, err := short.Purge(ctx, db); err != nil || n < 1 {
					t.Errorf("Purge: %d %v", n, err)
				}
			})
		})
	}
}
