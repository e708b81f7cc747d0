// Package sqlerr reads database drivers' errors by type and code, for the packages that
// talk to SQL: the SQLite result code of an error, whether an error is one that running
// the statement again may not meet (deadlocks, serialization failures, a busy SQLite
// file), and whether a CREATE ... IF NOT EXISTS lost a race to a concurrent one. Drivers
// are recognised without importing the SQLite ones.
package sqlerr

import (
	"errors"
	"reflect"
	"strings"

	"github.com/go-sql-driver/mysql"
)

// MattnPath is the package of mattn/go-sqlite3's Error, recognised without importing it
// (it needs cgo).
const MattnPath = "github.com/mattn/go-sqlite3"

// SQLiteCode returns the extended result code of a SQLite driver's error (err itself, not
// its chain): modernc.org/sqlite and glebarez/go-sqlite by a Code() int method on a type
// from a package whose path contains "sqlite" (other errors have Code methods meaning
// other things), mattn/go-sqlite3 by its ExtendedCode field.
func SQLiteCode(err error) (int, bool) { return sqliteCode(err, MattnPath) }

// sqliteCode is SQLiteCode with the package whose error type carries the code in a field
// named ExtendedCode as a parameter, so that tests can exercise that branch without the
// package.
func sqliteCode(err error, fieldPkg string) (int, bool) {
	t := reflect.TypeOf(err)
	if t == nil {
		return 0, false
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	pkg := t.PkgPath()
	if pkg == fieldPkg {
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
func Transient(err error) bool {
	var my *mysql.MySQLError
	if errors.As(err, &my) {
		return my.Number == 1213 || my.Number == 1205
	}
	var pg interface{ SQLState() string }
	if errors.As(err, &pg) {
		c := pg.SQLState()
		return c == "40001" || c == "40P01"
	}
	for e := err; e != nil; e = errors.Unwrap(e) {
		if code, ok := SQLiteCode(e); ok {
			code &= 0xff
			return code == 5 || code == 6
		}
	}
	return false
}

// MySQLDuplicate reports a MySQL/MariaDB duplicate-key error (1062), which inside a
// transaction fails the statement and leaves the transaction usable.
func MySQLDuplicate(err error) bool {
	var my *mysql.MySQLError
	return errors.As(err, &my) && my.Number == 1062
}

// CreateRace reports an error that a CREATE TABLE or CREATE INDEX ... IF NOT EXISTS may
// meet when another session runs the same statement at the same moment, and that running
// it again, once the other session has committed, does not meet: any Transient error;
// on PostgreSQL, whose IF NOT EXISTS checks the catalog before inserting into it, a
// unique violation (23505, on pg_type's or pg_class's name index), duplicate_table
// (42P07) or duplicate_object (42710); on MySQL, table exists (1050). Use it only for
// DDL: for an INSERT, 23505 is a real duplicate.
func CreateRace(err error) bool {
	if Transient(err) {
		return true
	}
	var my *mysql.MySQLError
	if errors.As(err, &my) {
		return my.Number == 1050
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
