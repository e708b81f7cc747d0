// Package sqlerr reads database drivers' errors by type and code, for the packages that
// talk to SQL: the SQLite result code of an error, whether an error is one that running
// the statement again may not meet (deadlocks, serialization failures, a busy SQLite
// file), and whether a CREATE ... IF NOT EXISTS lost a race to a concurrent one. Drivers
// are recognised without importing any of them (by method, or by type name and fields
// through reflection), so that detecting a driver's errors never links that driver into a
// program that chose another.
package sqlerr

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"reflect"
	"strings"
	"syscall"
)

// MySQLPath is the package of go-sql-driver/mysql's *MySQLError, recognised without
// importing it.
const MySQLPath = "github.com/go-sql-driver/mysql"

// MySQL returns the error number and message of the first go-sql-driver/mysql
// *MySQLError in err's chain (the struct's Number and Message fields, read by reflection
// so that the driver is not linked into programs that do not use it).
func MySQL(err error) (number int, message string, ok bool) { return drivers.mysqlChain(err) }

// MySQLError is MySQL for err itself, not its chain.
func MySQLError(err error) (number int, message string, ok bool) { return drivers.mysql(err) }

// paths are the packages whose error types are recognised by name and fields.
type paths struct {
	mysqlPkg  string // the package of a *MySQLError struct with Number and Message
	mattnPkg  string // the package of an error struct with an ExtendedCode field
	pgconnPkg string // the package of pgx's connection errors
}

// drivers are the real drivers' packages. The functions of this package use them; their
// tests pass paths of their own, so that they exercise every branch with look-alike types
// declared in the test instead of importing the drivers.
var drivers = paths{mysqlPkg: MySQLPath, mattnPkg: MattnPath, pgconnPkg: PgconnPath}

func (p paths) mysqlChain(err error) (int, string, bool) {
	for e := range Chain(err) {
		if n, m, ok := p.mysql(e); ok {
			return n, m, true
		}
	}
	return 0, "", false
}

func (p paths) mysql(err error) (int, string, bool) {
	v := reflect.ValueOf(err)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return 0, "", false
	}
	v = v.Elem()
	t := v.Type()
	if t.Kind() != reflect.Struct || t.Name() != "MySQLError" || t.PkgPath() != p.mysqlPkg {
		return 0, "", false
	}
	n, m := v.FieldByName("Number"), v.FieldByName("Message")
	if !n.IsValid() || !n.CanUint() || !m.IsValid() || m.Kind() != reflect.String {
		return 0, "", false
	}
	return int(n.Uint()), m.String(), true
}

// Chain yields err and every error it wraps (through Unwrap() error and Unwrap() []error),
// depth first in the order errors.As visits them.
func Chain(err error) func(yield func(error) bool) {
	return func(yield func(error) bool) { walk(err, yield) }
}

func walk(err error, yield func(error) bool) bool {
	for err != nil {
		if !yield(err) {
			return false
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				if !walk(e, yield) {
					return false
				}
			}
			return true
		default:
			return true
		}
	}
	return true
}

// MattnPath is the package of mattn/go-sqlite3's Error, recognised without importing it
// (it needs cgo).
const MattnPath = "github.com/mattn/go-sqlite3"

// SQLiteCode returns the extended result code of a SQLite driver's error (err itself, not
// its chain): modernc.org/sqlite and glebarez/go-sqlite by a Code() int method on a type
// from a package whose path contains "sqlite" (other errors have Code methods meaning
// other things), mattn/go-sqlite3 by its ExtendedCode field.
func SQLiteCode(err error) (int, bool) { return drivers.sqliteCode(err) }

func (p paths) sqliteCode(err error) (int, bool) {
	t := reflect.TypeOf(err)
	if t == nil {
		return 0, false
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	pkg := t.PkgPath()
	if pkg == p.mattnPkg {
		return extendedCodeField(err)
	}
	if c, ok := err.(interface{ Code() int }); ok && strings.Contains(pkg, "sqlite") {
		return c.Code(), true
	}
	return 0, false
}

// extendedCodeField returns the integer field ExtendedCode of the struct err is or points
// to.
func extendedCodeField(err error) (int, bool) {
	v := reflect.ValueOf(err)
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return 0, false
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return 0, false
	}
	f := v.FieldByName("ExtendedCode")
	if !f.IsValid() || !f.CanInt() {
		return 0, false
	}
	return int(f.Int()), true
}

// Transient reports an error that running the same statement or transaction again may
// not meet: MySQL deadlock (1213) or lock wait timeout (1205), PostgreSQL serialization
// failure (40001) or deadlock (40P01), SQLite BUSY or LOCKED with any extended code.
func Transient(err error) bool { return drivers.transient(err) }

func (p paths) transient(err error) bool {
	if n, _, ok := p.mysqlChain(err); ok {
		return n == 1213 || n == 1205
	}
	var pg interface{ SQLState() string }
	if errors.As(err, &pg) {
		c := pg.SQLState()
		return c == "40001" || c == "40P01"
	}
	for e := err; e != nil; e = errors.Unwrap(e) {
		if code, ok := p.sqliteCode(e); ok {
			code &= 0xff
			return code == 5 || code == 6
		}
	}
	return false
}

// MySQLDuplicate reports a MySQL/MariaDB duplicate-key error (1062), which inside a
// transaction fails the statement and leaves the transaction usable.
func MySQLDuplicate(err error) bool { return drivers.mysqlDuplicate(err) }

func (p paths) mysqlDuplicate(err error) bool {
	n, _, ok := p.mysqlChain(err)
	return ok && n == 1062
}

// PostgresDuplicate reports a PostgreSQL unique violation (SQLSTATE 23505) from a driver
// whose errors have a SQLState method (pgx's *pgconn.PgError, lib/pq's *pq.Error). Inside
// a transaction it aborts the transaction: only ROLLBACK can follow.
func PostgresDuplicate(err error) bool {
	var pg interface{ SQLState() string }
	return errors.As(err, &pg) && pg.SQLState() == "23505"
}

// CreateRace reports an error that a CREATE TABLE or CREATE INDEX ... IF NOT EXISTS may
// meet when another session runs the same statement at the same moment, and that running
// it again, once the other session has committed, does not meet: any Transient error;
// on PostgreSQL, whose IF NOT EXISTS checks the catalog before inserting into it, a
// unique violation (23505, on pg_type's or pg_class's name index), duplicate_table
// (42P07) or duplicate_object (42710); on MySQL, table exists (1050). Use it only for
// DDL: for an INSERT, 23505 is a real duplicate.
func CreateRace(err error) bool { return drivers.createRace(err) }

func (p paths) createRace(err error) bool {
	if p.transient(err) {
		return true
	}
	if n, _, ok := p.mysqlChain(err); ok {
		return n == 1050
	}
	var pg interface{ SQLState() string }
	if errors.As(err, &pg) {
		switch pg.SQLState() {
		case "23505", "42P07", "42710":
			return true
		}
	}
	return false
}

// PgconnPath is the package of pgx's connection errors (pgconn), recognised without
// importing it.
const PgconnPath = "github.com/jackc/pgx/v5/pgconn"

// mysqlInvalidConn is the text of go-sql-driver/mysql's ErrInvalidConn, an errors.New
// value the driver returns when the connection broke mid-statement (the server went
// away, the network dropped, a read or write failed): a sentinel whose identity cannot be
// recognised without importing the driver, so its text is.
const mysqlInvalidConn = "invalid connection"

// Unavailable reports an error that says the database, or the connection to it, could
// not do the work now, rather than that the work is wrong, so that running the same work
// again later may succeed: every Transient error; a connection that is broken or could not
// be made (driver.ErrBadConn, sql.ErrConnDone, net.ErrClosed, a *net.OpError such as a
// refused or reset connection, a net.Error that is a timeout, ECONNREFUSED, ECONNRESET,
// ECONNABORTED, EPIPE, ETIMEDOUT; io.EOF and io.ErrUnexpectedEOF, which pgx returns bare
// when the server closed the connection mid-statement; pgx's client-side connection
// errors; go-sql-driver/mysql's ErrInvalidConn); a context deadline
// (context.DeadlineExceeded: the store did not answer in time); and the errors servers
// send when they cannot serve: PostgreSQL's classes 08 (connection exception), 53
// (insufficient resources: disk full, out of memory, too many connections) and 58 (system
// error), and 57P01, 57P02, 57P03 (shutting down, crashed, not accepting connections yet)
// and 57P05 (idle session timeout); MySQL/MariaDB's 1040 (too many connections), 1053
// (server shutdown), 1152-1161 (aborted connection, network read or write failed), 1927
// (connection killed), 2002, 2003, 2006, 2013 and 2055 (the client codes of a server not
// reachable, gone away, or a connection lost). SQLite's I/O, full-disk and cannot-open
// errors count too. The EOFs are also what a decoder returns for short input: a caller
// that holds work back on this answer must still give up on work that keeps failing while
// the database serves other work (runtime/consume's Gate does).
func Unavailable(err error) bool { return drivers.unavailable(err) }

func (p paths) unavailable(err error) bool {
	if err == nil {
		return false
	}
	if p.transient(err) {
		return true
	}
	for _, target := range []error{driver.ErrBadConn, sql.ErrConnDone, net.ErrClosed, context.DeadlineExceeded, io.EOF, io.ErrUnexpectedEOF,
		syscall.ECONNREFUSED, syscall.ECONNRESET, syscall.ECONNABORTED, syscall.EPIPE, syscall.ETIMEDOUT} {
		if errors.Is(err, target) {
			return true
		}
	}
	var op *net.OpError
	if errors.As(err, &op) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	if n, _, ok := p.mysqlChain(err); ok {
		switch {
		case n == 1040, n == 1053, 1152 <= n && n <= 1161, n == 1927, n == 2002, n == 2003, n == 2006, n == 2013, n == 2055:
			return true
		}
		return false
	}
	var pg interface{ SQLState() string }
	if errors.As(err, &pg) {
		c := pg.SQLState()
		switch {
		case strings.HasPrefix(c, "08"), strings.HasPrefix(c, "53"), strings.HasPrefix(c, "58"),
			c == "57P01", c == "57P02", c == "57P03", c == "57P05":
			return true
		}
		return false
	}
	for e := range Chain(err) {
		if p.pgconnClient(e) || e.Error() == mysqlInvalidConn && reflect.TypeOf(e) == errorString {
			return true
		}
		if code, ok := p.sqliteCode(e); ok {
			switch code & 0xff {
			case 10, 13, 14: // SQLITE_IOERR, SQLITE_FULL, SQLITE_CANTOPEN
				return true
			}
			return false
		}
	}
	return false
}

// errorString is the type of errors.New's values.
var errorString = reflect.TypeOf(errors.New(""))

// pgconnClient reports whether err is one of pgx's own connection errors (a type of its
// pgconn package other than *PgError, which is the server's answer): a connection that
// could not be made, was closed, or failed reading or writing.
func (p paths) pgconnClient(err error) bool {
	t := reflect.TypeOf(err)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.PkgPath() == p.pgconnPkg && t.Name() != "PgError"
}
