package ledger_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"
	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"

	"github.com/idgen/idgen/integration/internal/testdb"
	"github.com/idgen/idgen/runtime/ledger"
	"github.com/idgen/idgen/runtime/sqldb"
)

// batchDBs returns a fresh database of each server (PostgreSQL and MySQL when their
// variables are set, SQLite always) with a table for a ledger made with opts and an
// effects table without a unique index, so that only the ledger keeps a message from
// running twice.
func batchDBs(t *testing.T, opts ledger.Options) map[string]func(t *testing.T) (*sql.DB, *ledger.Ledger) {
	open := func(t *testing.T, driver, dsn string, d sqldb.Dialect) (*sql.DB, *ledger.Ledger) {
		t.Helper()
		db, err := sql.Open(driver, dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		l, err := ledger.New(d, opts)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		if err := l.CreateTable(ctx, db); err != nil {
			t.Fatal(err)
		}
		if _, err := db.ExecContext(ctx, "CREATE TABLE effects (msg_key varchar(64) NOT NULL)"); err != nil {
			t.Fatal(err)
		}
		return db, l
	}
	return map[string]func(t *testing.T) (*sql.DB, *ledger.Ledger){
		"postgres": func(t *testing.T) (*sql.DB, *ledger.Ledger) {
			return open(t, "pgx", testdb.Postgres(t, "ledger_batch"), sqldb.Postgres)
		},
		"mysql": func(t *testing.T) (*sql.DB, *ledger.Ledger) {
			return open(t, "mysql", testdb.MySQL(t, "ledger_batch"), sqldb.MySQL)
		},
		"sqlite": func(t *testing.T) (*sql.DB, *ledger.Ledger) {
			return open(t, "sqlite", testdb.SQLiteDSN(t), sqldb.SQLite)
		},
	}
}

func effectsOf(t *testing.T, db *sql.DB) map[string]int {
	t.Helper()
	rows, err := db.Query("SELECT msg_key FROM effects")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			t.Fatal(err)
		}
		out[k]++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// runBatch runs OnceTxBatch over keys, each effect one row, failing for the key fail.
func runBatch(ctx context.Context, db *sql.DB, l *ledger.Ledger, keys []string, fail string) ([]bool, error) {
	return ledger.OnceTxBatch(ctx, db, l, keys, func(ctx context.Context, tx *sql.Tx, i int) error {
		if _, err := tx.ExecContext(ctx, "INSERT INTO effects (msg_key) VALUES ('"+keys[i]+"')"); err != nil {
			return err
		}
		if keys[i] == fail {
			return errBoom
		}
		return nil
	})
}

var errBoom = errors.New("boom")

// TestRecordBatch: new keys, a key given twice in one batch, keys already done, a failing
// effect, and an expired key, on each server.
func TestRecordBatch(t *testing.T) {
	ctx := context.Background()
	for name, open := range batchDBs(t, ledger.Options{}) {
		t.Run(name, func(t *testing.T) {
			db, l := open(t)
			ran, err := runBatch(ctx, db, l, []string{"c", "a", "b", "a"}, "")
			if want := []bool{true, true, true, false}; err != nil || !slices.Equal(ran, want) {
				t.Fatalf("new keys, a twice: ran=%v %v, want %v", ran, err, want)
			}
			// Known keys beside new ones: on MySQL the path that records key by key.
			ran, err = runBatch(ctx, db, l, []string{"d", "b", "e", "e", "a"}, "")
			if want := []bool{true, false, true, false, false}; err != nil || !slices.Equal(ran, want) {
				t.Fatalf("known keys beside new: ran=%v %v, want %v", ran, err, want)
			}
			ran, err = runBatch(ctx, db, l, []string{"a", "b"}, "")
			if want := []bool{false, false}; err != nil || !slices.Equal(ran, want) {
				t.Fatalf("all known: ran=%v %v, want %v", ran, err, want)
			}
			// One failing effect rolls back the batch: keys and rows.
			ran, err = runBatch(ctx, db, l, []string{"f", "g", "a"}, "g")
			if ran != nil || !errors.Is(err, errBoom) {
				t.Fatalf("failing batch: ran=%v %v, want nil and boom", ran, err)
			}
			ran, err = runBatch(ctx, db, l, []string{"g", "f"}, "")
			if want := []bool{true, true}; err != nil || !slices.Equal(ran, want) {
				t.Fatalf("after the failed batch: ran=%v %v, want %v (its keys must not be recorded)", ran, err, want)
			}
			want := map[string]int{"a": 1, "b": 1, "c": 1, "d": 1, "e": 1, "f": 1, "g": 1}
			if got := effectsOf(t, db); !maps.Equal(got, want) {
				t.Errorf("effects %v, want %v", got, want)
			}
			// The single form sees the batch's keys.
			if ran, err := ledger.OnceTx(ctx, db, l, "d", func(context.Context, *sql.Tx) error { return nil }); ran || err != nil {
				t.Errorf("OnceTx of a key a batch recorded: ran=%v %v", ran, err)
			}
			// An empty batch records nothing and fails nothing.
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback()
			if first, err := l.RecordBatch(ctx, tx, nil); err != nil || len(first) != 0 {
				t.Errorf("RecordBatch(nil) = %v, %v", first, err)
			}
			var long [ledger.MaxKeyLen + 1]byte
			if _, err := l.RecordBatch(ctx, tx, []string{"h", string(long[:])}); !errors.As(err, new(*ledger.KeyTooLongError)) {
				t.Errorf("RecordBatch with a key too long: %v, want a *KeyTooLongError", err)
			}
		})
	}
}

// TestRecordBatchExpired: a key whose TTL is over is recorded again by a batch, once.
func TestRecordBatchExpired(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	for name, open := range batchDBs(t, ledger.Options{TTL: time.Hour, Now: clock}) {
		t.Run(name, func(t *testing.T) {
			db, l := open(t)
			if ran, err := runBatch(ctx, db, l, []string{"x", "y"}, ""); err != nil || !slices.Equal(ran, []bool{true, true}) {
				t.Fatalf("first batch: %v %v", ran, err)
			}
			mu.Lock()
			now = now.Add(time.Hour) // the TTL is over: the keys are forgotten
			mu.Unlock()
			ran, err := runBatch(ctx, db, l, []string{"x", "z", "x"}, "")
			if want := []bool{true, true, false}; err != nil || !slices.Equal(ran, want) {
				t.Fatalf("after the TTL: ran=%v %v, want %v", ran, err, want)
			}
		})
	}
}

// TestRecordBatchConcurrent: 8 batches at once over the same 40 keys, in different orders
// and overlapping: every key runs exactly once, and no batch fails (the keys are locked in
// sorted order, so the batches do not deadlock; contention the database reports is run
// again).
func TestRecordBatchConcurrent(t *testing.T) {
	ctx := context.Background()
	for name, open := range batchDBs(t, ledger.Options{}) {
		t.Run(name, func(t *testing.T) {
			db, l := open(t)
			keys := make([]string, 40)
			for i := range keys {
				keys[i] = fmt.Sprintf("k%02d", i)
			}
			var wg sync.WaitGroup
			var mu sync.Mutex
			ranOf := map[string]int{}
			for w := range 8 {
				batch := slices.Clone(keys)
				if w%2 == 1 {
					slices.Reverse(batch)
				}
				batch = append(batch[w*3:], batch[:w*3]...)
				wg.Go(func() {
					for i := 0; i < len(batch); i += 10 {
						part := batch[i:min(i+10, len(batch))]
						ran, err := runBatch(ctx, db, l, part, "")
						if err != nil {
							t.Errorf("batch: %v", err)
							return
						}
						mu.Lock()
						for j, r := range ran {
							if r {
								ranOf[part[j]]++
							}
						}
						mu.Unlock()
					}
				})
			}
			wg.Wait()
			effects := effectsOf(t, db)
			for _, k := range keys {
				if ranOf[k] != 1 || effects[k] != 1 {
					t.Errorf("key %s: ran %d times, %d effect rows; want 1 and 1", k, ranOf[k], effects[k])
				}
			}
		})
	}
}
