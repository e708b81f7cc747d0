package idgentimpl

import (
	"database/sql"
	"fmt"
	"testing"
	"time"

	"entgo.io/ent/dialect"

	"github.com/idgen/idgen/runtime/sqldb"
	"github.com/idgen/idgen/runtime/uniq"
)

// TestKeyConflict passes MySQL's duplicates as uniq reports them, so that this module
// needs no driver; integration/idgent/idgentimpl passes go-sql-driver/mysql's own errors.
func TestKeyConflict(t *testing.T) {
	mysqlDup := func(key string) error {
		return &uniq.DuplicateError{Violation: uniq.Violation{Driver: sqldb.MySQL, Constraint: key}}
	}
	for _, c := range []struct {
		name    string
		err     error
		dialect string
		want    bool
	}{
		{"postgres no row", fmt.Errorf("scan: %w", sql.ErrNoRows), dialect.Postgres, true},
		{"sqlite no row", sql.ErrNoRows, dialect.SQLite, true},
		{"postgres other", fmt.Errorf("boom"), dialect.Postgres, false},
		{"mysql the key's index", fmt.Errorf("insert: %w", mysqlDup("order_request_id")), dialect.MySQL, true},
		{"mysql another index", mysqlDup("order_no"), dialect.MySQL, false},
		{"mysql unnamed key", mysqlDup(""), dialect.MySQL, false},
		{"mysql no row is no conflict", sql.ErrNoRows, dialect.MySQL, false},
	} {
		if got := KeyConflict(c.err, c.dialect, []string{"ORDER_REQUEST_ID"}); got != c.want {
			t.Errorf("%s: KeyConflict = %v, want %v", c.name, got, c.want)
		}
	}
	if !IsMySQL(dialect.MySQL) || IsMySQL(dialect.Postgres) {
		t.Error("IsMySQL")
	}
}

func TestDigitsUnit(t *testing.T) {
	d := Digits{MySQL: 3, Postgres: 6}
	for _, c := range []struct {
		dialect string
		want    time.Duration
	}{
		{dialect.MySQL, time.Millisecond},
		{dialect.Postgres, time.Microsecond},
		{dialect.SQLite, 0},
		{"other", 0},
	} {
		if got := d.Unit(c.dialect); got != c.want {
			t.Errorf("Unit(%s) = %v, want %v", c.dialect, got, c.want)
		}
	}
	if got := (Digits{MySQL: 0}).Unit(dialect.MySQL); got != time.Second {
		t.Errorf("0 digits: %v, want a second", got)
	}
	if got := (Digits{MySQL: -1}).Unit(dialect.MySQL); got != 0 {
		t.Errorf("-1 digits: %v, want exact", got)
	}
}
