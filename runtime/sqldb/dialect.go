package sqldb

import (
	"errors"
	"fmt"
	"strconv"
)

// Dialect is the SQL spoken by the database behind a store: [Postgres] (PostgreSQL 9.5 or
// later), [MySQL] (MySQL 8 or MariaDB 10.3 or later) or [SQLite] (3.42 or later; open it
// in WAL mode with a busy timeout, with modernc
// "?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)"). Every SQL store of idgen
// (lease.NewSQL, segment.NewSQL, idem.NewSQL, ledger.New) takes one. The zero value is no
// dialect.
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
