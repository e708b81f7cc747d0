package sqlstore_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/idgen/idgen/runtime/ledger"
	"github.com/idgen/idgen/runtime/sqldb"
)

// The drivers' real error types, which runtime/internal/sqlerr recognises without
// importing them (pgx's by its SQLState method, go-sql-driver/mysql's by its package path
// and fields); its own tests use look-alikes.

// TestTransient: ledger.Transient (sqlerr.Transient) on the drivers' errors.
func TestTransient(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"other", io.EOF, false},
		{"mysql deadlock", fmt.Errorf("claim: %w", &mysql.MySQLError{Number: 1213}), true},
		{"mysql deadlock joined", errors.Join(io.EOF, &mysql.MySQLError{Number: 1213}), true},
		{"mysql lock wait", &mysql.MySQLError{Number: 1205}, true},
		{"mysql duplicate", &mysql.MySQLError{Number: 1062}, false},
		{"mysql nil", (*mysql.MySQLError)(nil), false},
		{"pg serialization", &pgconn.PgError{Code: "40001"}, true},
		{"pg deadlock", fmt.Errorf("x: %w", &pgconn.PgError{Code: "40P01"}), true},
		{"pg unique", &pgconn.PgError{Code: "23505"}, false},
	} {
		if got := ledger.Transient(tc.err); got != tc.want {
			t.Errorf("%s: Transient = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestCreateRace: a CREATE that fails with an error another session's concurrent CREATE
// causes (sqlerr.CreateRace) is run again; any other error is returned at once. The
// statement's first run fails with the driver's error; its second, if any, succeeds.
func TestCreateRace(t *testing.T) {
	for _, tc := range []struct {
		name    string
		dialect sqldb.Dialect
		err     error
		race    bool
	}{
		{"pg catalog unique", sqldb.Postgres, fmt.Errorf("creating: %w", &pgconn.PgError{Code: "23505", ConstraintName: "pg_type_typname_nsp_index"}), true},
		{"pg duplicate table", sqldb.Postgres, &pgconn.PgError{Code: "42P07"}, true},
		{"pg duplicate object", sqldb.Postgres, &pgconn.PgError{Code: "42710"}, true},
		{"pg deadlock", sqldb.Postgres, &pgconn.PgError{Code: "40P01"}, true},
		{"pg syntax", sqldb.Postgres, &pgconn.PgError{Code: "42601"}, false},
		{"pg permission", sqldb.Postgres, &pgconn.PgError{Code: "42501"}, false},
		{"mysql table exists", sqldb.MySQL, &mysql.MySQLError{Number: 1050}, true},
		{"mysql deadlock", sqldb.MySQL, &mysql.MySQLError{Number: 1213}, true},
		{"mysql syntax", sqldb.MySQL, &mysql.MySQLError{Number: 1064}, false},
		{"other", sqldb.Postgres, io.EOF, false},
	} {
		l, err := ledger.New(tc.dialect, ledger.Options{})
		if err != nil {
			t.Fatal(err)
		}
		ex := &failOnce{err: tc.err}
		err = l.CreateTable(context.Background(), ex)
		switch {
		case tc.race && (err != nil || len(ex.runs) != len(l.Schema())+1 || ex.runs[0] != ex.runs[1]):
			t.Errorf("%s: CreateTable = %v after %q; want the first statement run again", tc.name, err, ex.runs)
		case !tc.race && (!errors.Is(err, tc.err) || strings.Contains(err.Error(), "attempt") || len(ex.runs) != 1):
			t.Errorf("%s: CreateTable = %v after %q; want the error at once", tc.name, err, ex.runs)
		}
	}
}
