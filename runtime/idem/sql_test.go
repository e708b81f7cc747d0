package idem

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/idgen/idgen/runtime/internal/sqlstore"
	"github.com/idgen/idgen/runtime/sqldb"
)

// TestNewSQL: the schema of each dialect, qualified tables, unknown dialects, and the
// table rule runtime/lease and runtime/segment share, on the names they test. NewSQL
// touches no database, so this needs none.
func TestNewSQL(t *testing.T) {
	for _, tc := range []struct {
		dialect sqldb.Dialect
		table   string
		err     error
		schema  []string // a fragment of each statement
	}{
		{sqldb.Postgres, "", nil, []string{"TABLE IF NOT EXISTS idgen_idempotency (", "INDEX IF NOT EXISTS idgen_idempotency_expires_at ON idgen_idempotency "}},
		{sqldb.Postgres, "app.idem", nil, []string{"TABLE IF NOT EXISTS app.idem (", "INDEX IF NOT EXISTS idem_expires_at ON app.idem "}},
		{sqldb.MySQL, "app.idem", nil, []string{"TABLE IF NOT EXISTS app.idem (\n\t`key`"}},
		{sqldb.SQLite, "main.idem", nil, []string{"TABLE IF NOT EXISTS main.idem (", "INDEX IF NOT EXISTS main.idem_expires_at ON idem "}},
		{sqldb.Dialect(9), "", sqldb.ErrUnknownDialect, nil},
		{0, "", sqldb.ErrUnknownDialect, nil},
	} {
		s, err := NewSQL(nil, tc.dialect, SQLOptions{Table: tc.table})
		if !errors.Is(err, tc.err) {
			t.Errorf("NewSQL(%v, %q): %v, want %v", tc.dialect, tc.table, err, tc.err)
			continue
		}
		if err != nil {
			continue
		}
		got := s.Schema()
		if len(got) != len(tc.schema) {
			t.Errorf("%s %q: %d statements, want %d:\n%s", tc.dialect, tc.table, len(got), len(tc.schema), strings.Join(got, ";\n"))
			continue
		}
		for i, frag := range tc.schema {
			if !strings.Contains(got[i], frag) {
				t.Errorf("%s %q: statement %d lacks %q:\n%s", tc.dialect, tc.table, i, frag, got[i])
			}
		}
	}
	for _, d := range []sqldb.Dialect{sqldb.Postgres, sqldb.MySQL, sqldb.SQLite} {
		for _, name := range sqlstore.HostileTables() {
			if name == "" {
				continue // SQLOptions' zero value: DefaultTable
			}
			_, err := NewSQL(nil, d, SQLOptions{Table: name})
			var te *sqldb.TableError
			if !errors.As(err, &te) || !errors.Is(err, sqldb.ErrInvalidTable) || !strings.HasPrefix(err.Error(), "idem: invalid table name ") {
				t.Errorf("NewSQL(%v, %q): %v, want a *TableError", d, name, err)
			}
		}
		for _, name := range sqlstore.GoodTables() {
			if _, err := NewSQL(nil, d, SQLOptions{Table: name}); err != nil {
				t.Errorf("NewSQL(%v, %q): %v", d, name, err)
			}
		}
	}
}

// TestSQLBind: one statement template, the placeholders and key column of each dialect.
func TestSQLBind(t *testing.T) {
	for _, tc := range []struct {
		dialect    sqldb.Dialect
		tmpl, want string
	}{
		{sqldb.Postgres, "SELECT $1, $2, $1 FROM {t} WHERE {key} = $10", "SELECT $1, $2, $1 FROM idgen_idempotency WHERE key = $10"},
		{sqldb.SQLite, "SELECT $1, $2, $1 FROM {t} WHERE {key} = $10", "SELECT ?1, ?2, ?1 FROM idgen_idempotency WHERE key = ?10"},
		{sqldb.MySQL, "SELECT $1, $2, $1 FROM {t} WHERE {key} = $10", "SELECT ?, ?, ? FROM idgen_idempotency WHERE `key` = ?"},
	} {
		s, err := NewSQL(nil, tc.dialect, SQLOptions{})
		if err != nil {
			t.Fatal(err)
		}
		args := make([]any, 10)
		for i := range args {
			args[i] = i + 1
		}
		st := s.bind(tc.tmpl)
		if st.Query != tc.want {
			t.Errorf("%s: %q, want %q", tc.dialect, st.Query, tc.want)
		}
		if got := fmt.Sprint(st.Args(args...)); tc.dialect == sqldb.MySQL && got != "[1 2 1 10]" {
			t.Errorf("mysql arguments %s, want [1 2 1 10]", got)
		}
	}
}
