package sqlerr

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"reflect"
	"syscall"
	"testing"
)

// The drivers' own error types are not imported here (this module requires no driver):
// look-alikes declared in this package stand in for them, recognised through paths that
// name this package (here). The real types are tested through the packages that use this
// one, in the integration module (integration/sqlstore, integration/uniq).

// here recognises the look-alikes of this file as the drivers' errors.
// pgconn errors are looked for in no package: hereWithPgconn is here with this package as
// pgx's, for the pgconn look-alike alone (every type of this package would pass for one).
var here = paths{mysqlPkg: reflect.TypeFor[mattnError]().PkgPath(), mattnPkg: reflect.TypeFor[mattnError]().PkgPath(), pgconnPkg: "none"}

// mattnError has the shape of mattn/go-sqlite3's Error: a value type with integer code
// fields.
type mattnError struct {
	Code         int
	ExtendedCode int
}

func (e mattnError) Error() string { return "mattn-shaped" }

// codeError has a Code() int method but lives outside any SQLite driver: not SQLite.
type codeError struct{ code int }

func (e *codeError) Error() string { return "code" }
func (e *codeError) Code() int     { return e.code }

// mysqlError returns a look-alike of go-sql-driver/mysql's *MySQLError: a struct of that
// name (declared in a function, since the package has a func of that name; its Error
// method comes from the embedded field) with the fields Number and Message.
func mysqlError(number uint16, message string) error {
	type MySQLError struct {
		mysqlMethods
		Number  uint16
		Message string
	}
	return &MySQLError{Number: number, Message: message}
}

// mysqlMethods gives the look-alike its Error method.
type mysqlMethods struct{}

func (mysqlMethods) Error() string { return "mysql look-alike" }

// stateError has the SQLState method of pgx's and lib/pq's errors, which is all that is
// read of them.
type stateError string

func (e stateError) Error() string    { return "state " + string(e) }
func (e stateError) SQLState() string { return string(e) }

func TestSQLiteCode(t *testing.T) {
	for _, tc := range []struct {
		name  string
		err   error
		paths paths
		code  int
		ok    bool
	}{
		{"mattn value", mattnError{Code: 19, ExtendedCode: 2067}, here, 2067, true},
		{"mattn pointer", &mattnError{Code: 19, ExtendedCode: 1555}, here, 1555, true},
		{"mattn nil pointer", (*mattnError)(nil), here, 0, false},
		{"other package", mattnError{ExtendedCode: 2067}, drivers, 0, false},
		{"no field", io.EOF, paths{mattnPkg: reflect.TypeOf(io.EOF).Elem().PkgPath()}, 0, false},
		{"code method outside sqlite", &codeError{2067}, drivers, 0, false},
		{"nil", nil, drivers, 0, false},
	} {
		code, ok := tc.paths.sqliteCode(tc.err)
		if code != tc.code || ok != tc.ok {
			t.Errorf("%s: sqliteCode = %d, %v; want %d, %v", tc.name, code, ok, tc.code, tc.ok)
		}
	}
	if _, ok := SQLiteCode(mattnError{ExtendedCode: 2067}); ok {
		t.Error("SQLiteCode recognised a type outside mattn's package")
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
		{"mysql deadlock", fmt.Errorf("claim: %w", mysqlError(1213, "")), true},
		{"mysql lock wait", mysqlError(1205, ""), true},
		{"mysql duplicate", mysqlError(1062, ""), false},
		{"pg serialization", stateError("40001"), true},
		{"pg deadlock", fmt.Errorf("x: %w", stateError("40P01")), true},
		{"pg unique", stateError("23505"), false},
		{"sqlite busy", mattnError{Code: 5, ExtendedCode: 5}, true},
		{"sqlite locked, extended", fmt.Errorf("x: %w", mattnError{Code: 6, ExtendedCode: 6 | 1<<8}), true},
		{"sqlite constraint", mattnError{Code: 19, ExtendedCode: 2067}, false},
		{"code outside sqlite", &codeError{5}, false},
	} {
		if got := here.transient(tc.err); got != tc.want {
			t.Errorf("%s: transient = %v, want %v", tc.name, got, tc.want)
		}
	}
	if Transient(mysqlError(1213, "")) {
		t.Error("Transient took a look-alike outside the driver's package for a MySQL deadlock")
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
		{"pg catalog unique", fmt.Errorf("creating: %w", stateError("23505")), true},
		{"pg duplicate table", stateError("42P07"), true},
		{"pg duplicate object", stateError("42710"), true},
		{"pg deadlock", stateError("40P01"), true},
		{"pg syntax", stateError("42601"), false},
		{"pg permission", stateError("42501"), false},
		{"mysql table exists", mysqlError(1050, ""), true},
		{"mysql deadlock", mysqlError(1213, ""), true},
		{"mysql syntax", mysqlError(1064, ""), false},
		{"sqlite busy", mattnError{Code: 5, ExtendedCode: 5}, true},
	} {
		if got := here.createRace(tc.err); got != tc.want {
			t.Errorf("%s: createRace = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestMySQLByReflection(t *testing.T) {
	n, msg, ok := here.mysqlChain(fmt.Errorf("insert: %w", mysqlError(1062, "Duplicate entry")))
	if !ok || n != 1062 || msg != "Duplicate entry" {
		t.Errorf("mysqlChain(wrapped driver error) = %d, %q, %v; want 1062, the message, true", n, msg, ok)
	}
	if _, _, ok := here.mysqlChain(errors.Join(io.EOF, mysqlError(1213, ""))); !ok {
		t.Error("mysqlChain does not find the driver's error inside errors.Join")
	}
	if _, _, ok := here.mysql(fmt.Errorf("x: %w", mysqlError(1062, ""))); ok {
		t.Error("mysql looked into the chain; it reads err itself")
	}
	if !here.mysqlDuplicate(fmt.Errorf("x: %w", mysqlError(1062, ""))) || here.mysqlDuplicate(mysqlError(1586, "")) {
		t.Error("mysqlDuplicate: want 1062 only")
	}
	// The same shape outside the driver's package, another type of the package, nil.
	for _, tc := range []struct {
		p   paths
		err error
	}{
		{drivers, mysqlError(1062, "")},
		{here, &lookalike{Number: 1062}},
		{here, io.EOF},
		{here, nil},
	} {
		if _, _, ok := tc.p.mysqlChain(tc.err); ok {
			t.Errorf("mysqlChain(%#v) recognised an error that is not the driver's", tc.err)
		}
	}
	if _, _, ok := MySQL(mysqlError(1062, "")); ok {
		t.Error("MySQL recognised a look-alike outside the driver's package")
	}
}

// lookalike has the fields of go-sql-driver/mysql's error under another name.
type lookalike struct {
	Number  uint16
	Message string
}

func (e *lookalike) Error() string { return e.Message }

func TestPostgresDuplicate(t *testing.T) {
	if !PostgresDuplicate(fmt.Errorf("insert: %w", stateError("23505"))) {
		t.Error("PostgresDuplicate(wrapped 23505) = false")
	}
	for _, err := range []error{stateError("23503"), stateError("40001"), mysqlError(1062, ""), io.EOF, nil} {
		if PostgresDuplicate(err) {
			t.Errorf("PostgresDuplicate(%v) = true", err)
		}
	}
}

func TestChain(t *testing.T) {
	a, b, c := errors.New("a"), errors.New("b"), errors.New("c")
	err := fmt.Errorf("top: %w", errors.Join(a, fmt.Errorf("mid: %w", b), c))
	var got []string
	for e := range Chain(err) {
		got = append(got, e.Error())
		if e == b {
			break // stopping early is honoured
		}
	}
	want := []string{err.Error(), errors.Join(a, fmt.Errorf("mid: %w", b), c).Error(), "a", "mid: b", "b"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Chain = %q, want %q", got, want)
	}
}

// pgconnError stands in for pgx's pgconn connection errors (here is its package).
type pgconnError struct{ err error }

func (e *pgconnError) Error() string { return "pgconn look-alike: " + e.err.Error() }
func (e *pgconnError) Unwrap() error { return e.err }

// PgError stands in for pgx's *pgconn.PgError, which is the server's answer, not a
// connection error.
type PgError struct{ code string }

func (e *PgError) Error() string    { return "PgError look-alike" }
func (e *PgError) SQLState() string { return e.code }

// timeoutError is a net.Error that is, or is not, a timeout.
type timeoutError bool

func (e timeoutError) Error() string   { return "net look-alike" }
func (e timeoutError) Timeout() bool   { return bool(e) }
func (e timeoutError) Temporary() bool { return false }

func TestUnavailable(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"bare EOF", io.EOF, true},
		{"unexpected EOF", fmt.Errorf("ledger: recording: %w", io.ErrUnexpectedEOF), true},
		{"other", errors.New("boom"), false},
		{"context canceled", context.Canceled, false},
		{"deadline", fmt.Errorf("x: %w", context.DeadlineExceeded), true},
		{"bad conn", fmt.Errorf("x: %w", driver.ErrBadConn), true},
		{"conn done", sql.ErrConnDone, true},
		{"net closed", fmt.Errorf("x: %w", net.ErrClosed), true},
		{"refused", fmt.Errorf("dial: %w", refused), true},
		{"reset errno", fmt.Errorf("read: %w", syscall.ECONNRESET), true},
		{"pipe", syscall.EPIPE, true},
		{"net timeout", timeoutError(true), true},
		{"net, not a timeout", timeoutError(false), false},
		{"pg admin shutdown", fmt.Errorf("x: %w", stateError("57P01")), true},
		{"pg crash shutdown", stateError("57P02"), true},
		{"pg cannot connect now", stateError("57P03"), true},
		{"pg connection failure", stateError("08006"), true},
		{"pg disk full", stateError("53100"), true},
		{"pg io error", stateError("58030"), true},
		{"pg serialization", stateError("40001"), true},
		{"pg syntax", stateError("42601"), false},
		{"pg check", stateError("23514"), false},
		{"mysql shutdown", mysqlError(1053, ""), true},
		{"mysql gone away", mysqlError(2006, ""), true},
		{"mysql lost", mysqlError(2013, ""), true},
		{"mysql deadlock", mysqlError(1213, ""), true},
		{"mysql duplicate", mysqlError(1062, ""), false},
		{"mysql invalid connection", fmt.Errorf("x: %w", errors.New("invalid connection")), true},
		{"sqlite ioerr", mattnError{Code: 10, ExtendedCode: 10 | 3<<8}, true},
		{"sqlite full", mattnError{Code: 13, ExtendedCode: 13}, true},
		{"sqlite busy", mattnError{Code: 5, ExtendedCode: 5}, true},
		{"sqlite constraint", mattnError{Code: 19, ExtendedCode: 2067}, false},
	} {
		if got := here.unavailable(tc.err); got != tc.want {
			t.Errorf("%s: unavailable(%v) = %v, want %v", tc.name, tc.err, got, tc.want)
		}
	}
	hereWithPgconn := here
	hereWithPgconn.pgconnPkg = here.mysqlPkg
	for _, err := range []error{fmt.Errorf("ledger: %w", &pgconnError{errors.New("write failed")}), &pgconnError{errors.New("conn closed")}} {
		if !hereWithPgconn.unavailable(err) {
			t.Errorf("unavailable(%v) = false for a pgconn error", err)
		}
	}
	if hereWithPgconn.unavailable(&PgError{"23505"}) {
		t.Error("a *PgError, the server's answer, was taken for a pgconn connection error")
	}
	if Unavailable(&pgconnError{errors.New("conn closed")}) {
		t.Error("Unavailable took a look-alike outside pgx's package for a pgconn error")
	}
}
