package sqlstore

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/idgen/idgen/runtime/sqldb"
)

func TestBind(t *testing.T) {
	for _, tc := range []struct {
		d     sqldb.Dialect
		query string
	}{
		{sqldb.Postgres, "SELECT $2, $1"},
		{sqldb.MySQL, "SELECT ?, ?"},
		{sqldb.SQLite, "SELECT ?2, ?1"},
	} {
		if q := Bind(tc.d, "SELECT $2, $1").Query; q != tc.query {
			t.Errorf("%v: Bind = %q, want %q", tc.d, q, tc.query)
		}
	}
	if got := Bind(sqldb.MySQL, "SELECT $2, $1").Args("a", "b"); fmt.Sprint(got) != "[b a]" {
		t.Errorf("MySQL args %v", got)
	}
}

func TestResolveTable(t *testing.T) {
	if got, err := ResolveTable("lease", sqldb.SQLite, "", "idgen_lease"); err != nil || got != "idgen_lease" {
		t.Errorf("empty table: %q, %v; want the default", got, err)
	}
	if got, err := ResolveTable("lease", sqldb.MySQL, "app.t", "idgen_lease"); err != nil || got != "app.t" {
		t.Errorf("qualified table: %q, %v", got, err)
	}
	_, err := ResolveTable("segment", sqldb.Dialect(9), "t", "d")
	if !errors.Is(err, sqldb.ErrUnknownDialect) || !strings.HasPrefix(err.Error(), "segment: unknown SQL dialect") {
		t.Errorf("unknown dialect: %v", err)
	}
	_, err = ResolveTable("idem", sqldb.Postgres, "a-b", "d")
	var te *sqldb.TableError
	if !errors.As(err, &te) || te.Table != "a-b" || !strings.HasPrefix(err.Error(), "idem: invalid table name ") {
		t.Errorf("bad table: %v", err)
	}
}
