package idgentimpl_test

import (
	"database/sql"
	"fmt"
	"testing"

	"entgo.io/ent/dialect"
	"github.com/go-sql-driver/mysql"

	"github.com/idgen/idgen/plugins/idgent/idgentimpl"
)

// TestKeyConflict reads go-sql-driver/mysql's own errors (plugins/idgent/idgentimpl's
// TestKeyConflict, without the driver, passes uniq.DuplicateError instead).
func TestKeyConflict(t *testing.T) {
	dup := &mysql.MySQLError{Number: 1062, Message: "Duplicate entry 'r1' for key 'order_request_id'"}
	for _, c := range []struct {
		name    string
		err     error
		dialect string
		want    bool
	}{
		{"postgres no row", fmt.Errorf("scan: %w", sql.ErrNoRows), dialect.Postgres, true},
		{"sqlite no row", sql.ErrNoRows, dialect.SQLite, true},
		{"postgres other", fmt.Errorf("boom"), dialect.Postgres, false},
		{"mysql the key's index", fmt.Errorf("insert: %w", dup), dialect.MySQL, true},
		{"mysql another index", &mysql.MySQLError{Number: 1062, Message: "Duplicate entry 'x' for key 'order_no'"}, dialect.MySQL, false},
		{"mysql no row is no conflict", sql.ErrNoRows, dialect.MySQL, false},
	} {
		if got := idgentimpl.KeyConflict(c.err, c.dialect, []string{"ORDER_REQUEST_ID"}); got != c.want {
			t.Errorf("%s: KeyConflict = %v, want %v", c.name, got, c.want)
		}
	}
	if !idgentimpl.IsMySQL(dialect.MySQL) || idgentimpl.IsMySQL(dialect.Postgres) {
		t.Error("IsMySQL")
	}
}
