package consume_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"sync"
	"testing"

	"github.com/idgen/idgen/runtime/consume"
	"github.com/idgen/idgen/runtime/idem"
	"github.com/idgen/idgen/runtime/ledger"
	"github.com/idgen/idgen/runtime/sqldb"
)

func sqliteDB(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "c.db")+"?_pragma=busy_timeout(20000)&_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec("CREATE TABLE effects (k TEXT)"); err != nil {
		t.Fatal(err)
	}
	return db
}

func rows(t *testing.T, db *sql.DB) int {
	t.Helper()
	var n int
	if err := db.QueryRow("SELECT count(*) FROM effects").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestProcessors: each Processor's answer for a first delivery, a redelivery and a failing
// delivery, and what it leaves in the database.
func TestProcessors(t *testing.T) {
	boom := errors.New("boom")
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		make func(db *sql.DB, fail *bool) consume.Processor[string]
		// again: whether a redelivery runs the effect again.
		again bool
	}{
		{"OnceTx", func(db *sql.DB, fail *bool) consume.Processor[string] {
			l, err := ledger.New(sqldb.SQLite, ledger.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := l.CreateTable(ctx, db); err != nil {
				t.Fatal(err)
			}
			return consume.OnceTx(db, l, func(ctx context.Context, tx *sql.Tx, m string) error {
				if _, err := tx.ExecContext(ctx, "INSERT INTO effects VALUES (?)", m); err != nil {
					return err
				}
				if *fail {
					return boom
				}
				return nil
			})
		}, false},
		{"InTx", func(db *sql.DB, fail *bool) consume.Processor[string] {
			return consume.InTx(db, func(ctx context.Context, tx *sql.Tx, m string) error {
				if _, err := tx.ExecContext(ctx, "INSERT INTO effects VALUES (?)", m); err != nil {
					return err
				}
				if *fail {
					return boom
				}
				return nil
			})
		}, true},
		{"Once", func(db *sql.DB, fail *bool) consume.Processor[string] {
			return consume.Once(idem.NewMemory(), func(ctx context.Context, m string) error {
				if *fail {
					return boom
				}
				_, err := db.ExecContext(ctx, "INSERT INTO effects VALUES (?)", m)
				return err
			}, idem.OnceOptions{})
		}, false},
		{"AtLeastOnce", func(db *sql.DB, fail *bool) consume.Processor[string] {
			return consume.AtLeastOnce(func(ctx context.Context, m string) error {
				if *fail {
					return boom
				}
				_, err := db.ExecContext(ctx, "INSERT INTO effects VALUES (?)", m)
				return err
			})
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := sqliteDB(t)
			fail := true
			p := tc.make(db, &fail)
			if ran, err := p(ctx, "k", "m"); ran || !errors.Is(err, boom) {
				t.Fatalf("failing delivery: ran=%v err=%v, want false and boom", ran, err)
			}
			if n := rows(t, db); n != 0 {
				t.Fatalf("a failed delivery left %d rows", n)
			}
			fail = false
			if ran, err := p(ctx, "k", "m"); !ran || err != nil {
				t.Fatalf("redelivery after the failure: ran=%v err=%v, want true", ran, err)
			}
			ran, err := p(ctx, "k", "m")
			if err != nil || ran != tc.again {
				t.Fatalf("another redelivery: ran=%v err=%v, want ran=%v", ran, err, tc.again)
			}
			want := 1
			if tc.again {
				want = 2
			}
			if n := rows(t, db); n != want {
				t.Errorf("%d rows, want %d", n, want)
			}
		})
	}
}

func TestNoKeyError(t *testing.T) {
	var err error = &consume.NoKeyError{Source: "message-id property", Message: "with delivery tag 3"}
	if !errors.Is(err, consume.ErrNoKey) {
		t.Errorf("%v does not match ErrNoKey", err)
	}
	if got, want := err.Error(), "consume: message with delivery tag 3 has no key (looked in the message-id property)"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestStats(t *testing.T) {
	var s consume.Stats
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 1000 {
				for o := consume.Processed; o <= consume.Paused; o++ {
					s.Delivered(o, o == consume.Duplicate)
				}
			}
		})
	}
	wg.Wait()
	want := consume.Counts{Processed: 4000, Duplicate: 4000, Failed: 4000, DeadLettered: 4000, NoKey: 4000, Paused: 4000, Redelivered: 4000}
	if got := s.Counts(); got != want {
		t.Errorf("Counts() = %+v, want %+v", got, want)
	}
	for o, name := range map[consume.Outcome]string{consume.Processed: "processed", consume.DeadLettered: "dead_lettered", consume.NoKey: "no_key", consume.Paused: "paused", 0: "unknown"} {
		if o.String() != name {
			t.Errorf("%d.String() = %q, want %q", o, o.String(), name)
		}
	}
}
