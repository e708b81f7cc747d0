package sqlerr

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"testing"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"
)

// mattnError has the shape of mattn/go-sqlite3's Error: a value type with integer code
// fields. Its package path is this package's, so it reaches the ExtendedCode branch only
// when the test passes that path to sqliteCode.
type mattnError struct {
	Code         int
	ExtendedCode int
}

func (e mattnError) Error() string { return "mattn-shaped" }

// codeError has a Code() int method but lives outside any SQLite driver: not SQLite.
type codeError struct{ code int }

func (e *codeError) Error() string { return "code" }
func (e *codeError) Code() int     { return e.code }

func TestSQLiteCode(t *testing.T) {
	here := reflect.TypeFor[mattnError]().PkgPath()
	for _, tc := range []struct {
		name     string
		err      error
		fieldPkg string
		code     int
		ok       bool
	}{
		{"mattn value", mattnError{Code: 19, ExtendedCode: 2067}, here, 2067, true},
		{"mattn pointer", &mattnError{Code: 19, ExtendedCode: 1555}, here, 1555, true},
		{"mattn nil pointer", (*mattnError)(nil), here, 0, false},
		{"other package", mattnError{ExtendedCode: 2067}, MattnPath, 0, false},
		{"no field", io.EOF, reflect.TypeOf(io.EOF).Elem().PkgPath(), 0, false},
		{"code method outside sqlite", &codeError{2067}, MattnPath, 0, false},
		{"nil", nil, MattnPath, 0, false},
	} {
		code, ok := sqliteCode(tc.err, tc.fieldPkg)
		if code != tc.code || ok != tc.ok {
			t.Errorf("%s: sqliteCode = %d, %v; want %d, %v", tc.name, code, ok, tc.code, tc.ok)
		}
	}
}

func TestTransient(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"other", io.EOF, false},
		{"mysql deadlock", fmt.Errorf("claim: %w", &mysql.MySQLError{Number: 1213}), true},
		{"mysql lock wait", &mysql.MySQLError{Number: 1205}, true},
		{"mysql duplicate", &mysql.MySQLError{Number: 1062}, false},
		{"pg serialization", &pgconn.PgError{Code: "40001"}, true},
		{"pg deadlock", fmt.Errorf("x: %w", &pgconn.PgError{Code: "40P01"}), true},
		{"pg unique", &pgconn.PgError{Code: "23505"}, false},
		{"code outside sqlite", &codeError{5}, false},
	} {
		if got := Transient(tc.err); got != tc.want {
			t.Errorf("%s: Transient = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestCreateRace(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"other", io.EOF, false},
		{"pg catalog unique", fmt.Errorf("creating: %w", &pgconn.PgError{Code: "23505", ConstraintName: "pg_type_typname_nsp_index"}), true},
		{"pg duplicate table", &pgconn.PgError{Code: "42P07"}, true},
		{"pg duplicate object", &pgconn.PgError{Code: "42710"}, true},
		{"pg deadlock", &pgconn.PgError{Code: "40P01"}, true},
		{"pg syntax", &pgconn.PgError{Code: "42601"}, false},
		{"pg permission", &pgconn.PgError{Code: "42501"}, false},
		{"mysql table exists", &mysql.MySQLError{Number: 1050}, true},
		{"mysql deadlock", &mysql.MySQLError{Number: 1213}, true},
		{"mysql syntax", &mysql.MySQLError{Number: 1064}, false},
	} {
		if got := CreateRace(tc.err); got != tc.want {
			t.Errorf("%s: CreateRace = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// lookalike has the fields of go-sql-driver/mysql's error, in another package.
type lookalike struct {
	Number  uint16
	Message string
}

func (e *lookalike) Error() string { return e.Message }

func TestMySQLByReflection(t *testing.T) {
	n, msg, ok := MySQL(fmt.Errorf("insert: %w", &mysql.MySQLError{Number: 1062, Message: "Duplicate entry"}))
	if !ok || n != 1062 || msg != "Duplicate entry" {
		t.Errorf("MySQL(wrapped driver error) = %d, %q, %v; want 1062, the message, true", n, msg, ok)
	}
	if _, _, ok := MySQL(errors.Join(io.EOF, &mysql.MySQLError{Number: 1213})); !ok {
		t.Error("MySQL does not find the driver's error inside errors.Join")
	}
	if _, _, ok := MySQLError(fmt.Errorf("x: %w", &mysql.MySQLError{Number: 1062})); ok {
		t.Error("MySQLError looked into the chain; it reads err itself")
	}
	for _, err := range []error{&lookalike{Number: 1062}, io.EOF, nil, (*mysql.MySQLError)(nil)} {
		if _, _, ok := MySQL(err); ok {
			t.Errorf("MySQL(%#v) recognised an error that is not the driver's", err)
		}
	}
}

// stateError has the SQLState method of pgx's and lib/pq's errors.
type stateError string

func (e stateError) Error() string    { return "state " + string(e) }
func (e stateError) SQLState() string { return string(e) }

func TestPostgresDuplicate(t *testing.T) {
	if !PostgresDuplicate(fmt.Errorf("insert: %w", stateError("23505"))) {
		t.Error("PostgresDuplicate(wrapped 23505) = false")
	}
	for _, err := range []error{stateError("23503"), stateError("40001"), &mysql.MySQLError{Number: 1062}, io.EOF, nil} {
		if PostgresDuplicate(err) {
			t.Errorf("PostgresDuplicate(%v) = true", err)
		}
	}
}
