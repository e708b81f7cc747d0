package lease_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/idgen/idgen/runtime/internal/sqlstore"
	"github.com/idgen/idgen/runtime/lease"
	"github.com/idgen/idgen/runtime/sqldb"
)

// TestNewSQL: the shared table-name rule (sqlstore.HostileTables, GoodTables), the same
// in runtime/segment and runtime/idem, and the dialects.
func TestNewSQL(t *testing.T) {
	for _, name := range sqlstore.GoodTables() {
		if _, err := lease.NewSQL(nil, sqldb.Postgres, lease.SQLOptions{Table: name}); err != nil {
			t.Errorf("NewSQL(%q) = %v, want ok", name, err)
		}
	}
	for _, name := range sqlstore.HostileTables() {
		if name == "" {
			continue // DefaultTable
		}
		for _, d := range []sqldb.Dialect{sqldb.Postgres, sqldb.MySQL, sqldb.SQLite} {
			_, err := lease.NewSQL(nil, d, lease.SQLOptions{Table: name})
			var te *sqldb.TableError
			if !errors.Is(err, sqldb.ErrInvalidTable) || !errors.As(err, &te) || te.Table != name || !strings.HasPrefix(err.Error(), "lease: invalid table name ") {
				t.Errorf("NewSQL(%v, %q) = %v, want a *TableError", d, name, err)
			}
		}
	}
	for _, d := range []sqldb.Dialect{0, 9} {
		if _, err := lease.NewSQL(nil, d, lease.SQLOptions{}); !errors.Is(err, sqldb.ErrUnknownDialect) || !strings.HasPrefix(err.Error(), "lease: unknown SQL dialect") {
			t.Errorf("NewSQL(%v) = %v, want ErrUnknownDialect", d, err)
		}
	}
}

// TestBind checks the placeholders each dialect gets: MySQL's positional ? repeat the
// arguments they stand for.
func TestBind(t *testing.T) {
	const q = "UPDATE t SET a = $2, b = $1 WHERE c = $2 AND d < {now}"
	pg := lease.Bind(sqldb.Postgres, "t", q)
	if !strings.Contains(pg.Query, "a = $2, b = $1 WHERE c = $2") || pg.Args(1, 2) == nil {
		t.Errorf("postgres: %q", pg.Query)
	}
	lite := lease.Bind(sqldb.SQLite, "t", q)
	if !strings.Contains(lite.Query, "a = ?2, b = ?1 WHERE c = ?2 AND d < CAST(unixepoch('subsec')") {
		t.Errorf("sqlite: %q", lite.Query)
	}
	my := lease.Bind(sqldb.MySQL, "t", q)
	if !strings.Contains(my.Query, "a = ?, b = ? WHERE c = ? AND d < FLOOR(") || fmt.Sprint(my.Args("x", "y")) != "[y x y]" {
		t.Errorf("mysql: %q %v", my.Query, my.Args("x", "y"))
	}
}

func TestSchema(t *testing.T) {
	for _, d := range []sqldb.Dialect{sqldb.Postgres, sqldb.MySQL, sqldb.SQLite} {
		for _, table := range []string{"", "app.leases"} {
			b, err := lease.NewSQL(nil, d, lease.SQLOptions{Table: table})
			if err != nil {
				t.Fatal(err)
			}
			stmts := b.Schema()
			if len(stmts) != 1 {
				t.Fatalf("%v: %d statements", d, len(stmts))
			}
			for _, col := range []string{"CREATE TABLE IF NOT EXISTS " + b.Table() + " (", "worker_id", "holder", "expires_ms", "last_ms", "prev_expires_ms", "PRIMARY KEY"} {
				if !strings.Contains(stmts[0], col) {
					t.Errorf("%v schema lacks %q:\n%s", d, col, stmts[0])
				}
			}
		}
	}
}

func TestToMs(t *testing.T) {
	for _, tc := range []struct {
		t    time.Time
		want int64
	}{
		{time.Time{}, 0},
		{time.UnixMilli(1000), 1000},
		{time.UnixMilli(1000).Add(time.Microsecond), 1001},
		{time.UnixMilli(1000).Add(999 * time.Microsecond), 1001},
	} {
		if got := lease.ToMs(tc.t); got != tc.want {
			t.Errorf("toMs(%v) = %d, want %d", tc.t, got, tc.want)
		}
	}
	if !lease.FromMs(0).IsZero() || !lease.FromMs(1000).Equal(time.UnixMilli(1000)) {
		t.Error("fromMs")
	}
}
