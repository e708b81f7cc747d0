// Package consumetest is for the tests of broker adapters, which live in modules of their
// own and cannot import the core module's internal test helpers: fresh effect stores on the
// servers in IDGEN_TEST_POSTGRES_DSN and IDGEN_TEST_MYSQL_DSN, and consumer processes run
// from the test binary, to be SIGKILLed and restarted. Like net/http/httptest, it is
// imported by tests only.
//
// A Store is a database named "idgen_" + name, dropped if it exists, created, and dropped
// when the test ends; without the variable naming its server the test is skipped with a
// message naming it, and with the variable set and the server down it fails.
package consumetest

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/idgen/idgen/integration/internal/testdb"
	"github.com/idgen/idgen/runtime/ledger"
	"github.com/idgen/idgen/runtime/sqldb"
)

// Store is a fresh database with the table of Ledger and an effect table, "effects"
// (msg_key, pid), that has no unique key, so that a duplicate effect shows as a second row.
// Its exported fields other than DB and Ledger are what a consumer process needs to open
// it again (they marshal as JSON).
type Store struct {
	Name    string // "postgres" or "mariadb"
	Driver  string // the database/sql driver: "pgx" or "mysql"
	DSN     string
	Dialect sqldb.Dialect
	DB      *sql.DB        `json:"-"`
	Ledger  *ledger.Ledger `json:"-"`
}

// Kind is a kind of Store the adapters are tested on.
type Kind struct {
	Name string
	// Open returns a fresh Store named "idgen_" + db, closed and dropped when t ends.
	Open func(t testing.TB, db string) *Store
}

// Kinds lists the stores the adapters are tested on: PostgreSQL and MariaDB.
func Kinds() []Kind {
	return []Kind{
		{"postgres", func(t testing.TB, db string) *Store {
			t.Helper()
			return open(t, "postgres", "pgx", testdb.Postgres(t, db), sqldb.Postgres)
		}},
		{"mariadb", func(t testing.TB, db string) *Store {
			t.Helper()
			// interpolateParams saves a prepare round trip per statement, which the
			// ledger's extra statement would otherwise pay twice.
			cfg, err := mysql.ParseDSN(testdb.MySQL(t, db))
			if err != nil {
				t.Fatal(err)
			}
			cfg.InterpolateParams = true
			return open(t, "mariadb", "mysql", cfg.FormatDSN(), sqldb.MySQL)
		}},
	}
}

func open(t testing.TB, name, driver, dsn string, dialect sqldb.Dialect) *Store {
	t.Helper()
	s := &Store{Name: name, Driver: driver, DSN: dsn, Dialect: dialect}
	if err := s.Open(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.DB.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.Ledger.CreateTable(ctx, s.DB); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DB.ExecContext(ctx, "CREATE TABLE effects (msg_key VARCHAR(64) NOT NULL, pid INTEGER NOT NULL)"); err != nil {
		t.Fatal(err)
	}
	return s
}

// Open sets DB and Ledger from Driver, DSN and Dialect, as a consumer process does with
// the Store its parent passed it.
func (s *Store) Open() error {
	db, err := sql.Open(s.Driver, s.DSN)
	if err != nil {
		return err
	}
	db.SetMaxIdleConns(16)
	l, err := ledger.New(s.Dialect, ledger.Options{})
	if err != nil {
		db.Close()
		return err
	}
	s.DB, s.Ledger = db, l
	return nil
}

// Insert is the statement of the tests' effect, with two parameters: the key and the pid.
func (s *Store) Insert() string {
	if s.Dialect == sqldb.Postgres {
		return "INSERT INTO effects (msg_key, pid) VALUES ($1, $2)"
	}
	return "INSERT INTO effects (msg_key, pid) VALUES (?, ?)"
}

// Effects returns the effect table's rows and distinct keys.
func (s *Store) Effects(t testing.TB) (rows, keys int) {
	t.Helper()
	if err := s.DB.QueryRow("SELECT COUNT(*), COUNT(DISTINCT msg_key) FROM effects").Scan(&rows, &keys); err != nil {
		t.Fatal(err)
	}
	return rows, keys
}

// Keys returns the distinct keys of the effect table.
func (s *Store) Keys(t testing.TB) map[string]bool {
	t.Helper()
	rows, err := s.DB.Query("SELECT DISTINCT msg_key FROM effects")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	keys := map[string]bool{}
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			t.Fatal(err)
		}
		keys[k] = true
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return keys
}

// Count returns SELECT COUNT(*) FROM table.
func (s *Store) Count(t testing.TB, table string) int {
	t.Helper()
	var n int
	if err := s.DB.QueryRow("SELECT COUNT(*) FROM " + table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
