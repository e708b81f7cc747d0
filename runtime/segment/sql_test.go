package segment_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/idgen/idgen/runtime/internal/sqlstore"
	"github.com/idgen/idgen/runtime/segment"
	"github.com/idgen/idgen/runtime/sqldb"
)

// TestNewSQL: the shared table-name rule (sqlstore.HostileTables, GoodTables), the same
// in runtime/lease and runtime/idem, the dialects, and the schema each one gets.
func TestNewSQL(t *testing.T) {
	for _, name := range sqlstore.GoodTables() {
		if _, err := segment.NewSQL(nil, sqldb.Postgres, segment.SQLOptions{Table: name}); err != nil {
			t.Errorf("NewSQL(%q) = %v, want ok", name, err)
		}
	}
	for _, name := range sqlstore.HostileTables() {
		if name == "" {
			continue // DefaultTable
		}
		for _, d := range []sqldb.Dialect{sqldb.Postgres, sqldb.MySQL, sqldb.SQLite} {
			_, err := segment.NewSQL(nil, d, segment.SQLOptions{Table: name})
			var te *sqldb.TableError
			if !errors.Is(err, sqldb.ErrInvalidTable) || !errors.As(err, &te) || te.Table != name || !strings.HasPrefix(err.Error(), "segment: invalid table name ") {
				t.Errorf("NewSQL(%v, %q) = %v, want a *TableError", d, name, err)
			}
		}
	}
	for _, d := range []sqldb.Dialect{0, 9} {
		if _, err := segment.NewSQL(nil, d, segment.SQLOptions{}); !errors.Is(err, sqldb.ErrUnknownDialect) || !strings.HasPrefix(err.Error(), "segment: unknown SQL dialect") {
			t.Errorf("NewSQL(%v) = %v, want ErrUnknownDialect", d, err)
		}
	}
	for _, d := range []sqldb.Dialect{sqldb.Postgres, sqldb.MySQL, sqldb.SQLite} {
		s, err := segment.NewSQL(nil, d, segment.SQLOptions{Table: "app.seg"})
		if err != nil {
			t.Fatal(err)
		}
		stmts := s.Schema()
		if len(stmts) != 1 || !strings.HasPrefix(stmts[0], "CREATE TABLE IF NOT EXISTS app.seg (") || !strings.Contains(stmts[0], "max_id") {
			t.Errorf("%v: schema %q", d, stmts)
		}
	}
}
