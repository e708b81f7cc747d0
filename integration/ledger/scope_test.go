package ledger_test

import (
	"context"
	"database/sql"
	"os"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idgen/idgen/runtime/ledger"
)

// TestRecorded: Recorded reads whether a key's work committed, within its TTL, and
// records nothing.
func TestRecorded(t *testing.T) {
	for _, b := range sqlBackends {
		t.Run(b.name, func(t *testing.T) {
			if b.env != "" && os.Getenv(b.env) == "" {
				t.Skip("set " + b.env + " to run against " + b.name)
			}
			db := b.open(t, b.dsn(t, "ledger_recorded"))
			var now atomic.Int64
			now.Store(time.Now().UnixMilli())
			l, err := ledger.New(b.dialect, ledger.Options{TTL: time.Hour, Now: func() time.Time { return time.UnixMilli(now.Load()) }})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if err := l.CreateTable(ctx, db); err != nil {
				t.Fatal(err)
			}
			recorded := func(key string) bool {
				t.Helper()
				ok, err := l.Recorded(ctx, db, key)
				if err != nil {
					t.Fatal(err)
				}
				return ok
			}
			if recorded("k1") {
				t.Error("an unknown key is recorded")
			}
			if recorded("k1") { // and reading did not record it
				t.Error("Recorded recorded the key")
			}
			if ran, err := ledger.OnceTx(ctx, db, l, "k1", func(context.Context, *sql.Tx) error { return nil }); !ran || err != nil {
				t.Fatal(ran, err)
			}
			if !recorded("k1") || recorded("k2") {
				t.Error("k1 done is not recorded, or k2 is")
			}
			now.Add(int64(2 * time.Hour / time.Millisecond))
			if recorded("k1") {
				t.Error("a key past its TTL is recorded")
			}
		})
	}
}

// TestReadUnscoped: a ledger with ReadUnscoped takes a scoped key whose bare form a
// version before scoping recorded (within its TTL) for done, in Record, RecordBatch,
// OnceTxBatch and Recorded, and records nothing for it; without the option the scoped key
// is new.
func TestReadUnscoped(t *testing.T) {
	for _, b := range sqlBackends {
		t.Run(b.name, func(t *testing.T) {
			if b.env != "" && os.Getenv(b.env) == "" {
				t.Skip("set " + b.env + " to run against " + b.name)
			}
			db := b.open(t, b.dsn(t, "ledger_unscoped"))
			ctx := context.Background()
			plain, err := ledger.New(b.dialect, ledger.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := plain.CreateTable(ctx, db); err != nil {
				t.Fatal(err)
			}
			reading, err := ledger.New(b.dialect, ledger.Options{ReadUnscoped: true})
			if err != nil {
				t.Fatal(err)
			}
			nothing := func(context.Context, *sql.Tx) error { return nil }
			for _, k := range []string{"m1", "m3"} { // recorded bare, as before scoping
				if ran, err := ledger.OnceTx(ctx, db, plain, k, nothing); !ran || err != nil {
					t.Fatal(ran, err)
				}
			}
			q := func(k string) string { return ledger.ScopedKey("rabbitmq:orders", k) }

			if ok, err := reading.Recorded(ctx, db, q("m1")); !ok || err != nil {
				t.Errorf("Recorded(scoped m1) = %v, %v; want true (its bare key is)", ok, err)
			}
			if ok, err := plain.Recorded(ctx, db, q("m1")); ok || err != nil {
				t.Errorf("without ReadUnscoped, Recorded(scoped m1) = %v, %v; want false", ok, err)
			}
			if ran, err := ledger.OnceTx(ctx, db, reading, q("m1"), nothing); ran || err != nil {
				t.Errorf("OnceTx(scoped m1) = %v, %v; want false (done before scoping)", ran, err)
			}
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			first, err := reading.RecordBatch(ctx, tx, []string{q("m1"), q("m2"), q("m1")})
			if err != nil || !slices.Equal(first, []bool{false, true, false}) {
				t.Errorf("RecordBatch(scoped m1, m2, m1) = %v, %v; want [false true false]", first, err)
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			ran, err := ledger.OnceTxBatch(ctx, db, reading, []string{q("m3"), q("m4")}, func(context.Context, *sql.Tx, int) error { return nil })
			if err != nil || !slices.Equal(ran, []bool{false, true}) {
				t.Errorf("OnceTxBatch(scoped m3, m4) = %v, %v; want [false true]", ran, err)
			}
			var held int
			if err := db.QueryRow("SELECT count(*) FROM idgen_done").Scan(&held); err != nil {
				t.Fatal(err)
			}
			if held != 4 { // m1, m3 bare; m2, m4 scoped
				t.Errorf("the ledger holds %d keys, want 4 (nothing recorded for a key done before scoping)", held)
			}
			if ran, err := ledger.OnceTx(ctx, db, plain, q("m1"), nothing); !ran || err != nil {
				t.Errorf("without ReadUnscoped, OnceTx(scoped m1) = %v, %v; want true", ran, err)
			}
		})
	}
}
