package sqlstore

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/idgen/idgen/runtime/internal/sqlbind"
)

// Dialect is the SQL spoken by the database behind a store. The zero value is no dialect.
type Dialect uint8

const (
	// Postgres is PostgreSQL, through pgx's stdlib driver or lib/pq.
	Postgres Dialect = iota + 1
	// MySQL is MySQL or MariaDB, through go-sql-driver/mysql.
	MySQL
	// SQLite is SQLite, through modernc.org/sqlite or another driver.
	SQLite
)

// ErrUnknownDialect is matched by the error of CheckDialect.
var ErrUnknownDialect = errors.New("unknown SQL dialect")

// String returns the dialect's name: "postgres", "mysql", "sqlite", or "Dialect(n)".
func (d Dialect) String() string {
	switch d {
	case Postgres:
		return "postgres"
	case MySQL:
		return "mysql"
	case SQLite:
		return "sqlite"
	}
	return "Dialect(" + strconv.Itoa(int(d)) + ")"
}

// CheckDialect returns an error matching ErrUnknownDialect unless d is Postgres, MySQL or
// SQLite.
func CheckDialect(d Dialect) error {
	if d < Postgres || d > SQLite {
		return fmt.Errorf("%w %v: want Postgres, MySQL or SQLite", ErrUnknownDialect, d)
	}
	return nil
}

// Style returns d's placeholder style: $1 (PostgreSQL), ?1 (SQLite), ? (MySQL).
func Style(d Dialect) sqlbind.Style {
	switch d {
	case MySQL:
		return sqlbind.Positional
	case SQLite:
		return sqlbind.Numbered
	}
	return sqlbind.Dollar
}

// Bind rewrites q, written with PostgreSQL's $1, $2, for d (see package sqlbind).
func Bind(d Dialect, q string) sqlbind.Stmt { return sqlbind.Bind(q, Style(d)) }
