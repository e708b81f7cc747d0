// Package sqlstore_test holds the server-backed tests of runtime/internal/sqlstore and
// runtime/internal/sqlerr, which the root module cannot run without requiring drivers:
// the creation of tables when many sessions start on a new database at once, and the
// drivers' real error types. An internal package is not importable from this module, so
// the tests go through the stores that use it: lease.NewSQL, segment.NewSQL, idem.NewSQL
// and ledger.New, each with its CreateTable, and ledger.Transient.
package sqlstore_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	_ "github.com/go-sql-driver/mysql" // database/sql driver "mysql"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
	_ "modernc.org/sqlite"             // database/sql driver "sqlite"

	"github.com/idgen/idgen/integration/internal/testdb"
	"github.com/idgen/idgen/runtime/idem"
	"github.com/idgen/idgen/runtime/lease"
	"github.com/idgen/idgen/runtime/ledger"
	"github.com/idgen/idgen/runtime/segment"
	"github.com/idgen/idgen/runtime/sqldb"
)

// servers are the databases the creation tests run on: SQLite always, the others when
// their variable is set. Every test gets a new database.
var servers = []struct {
	dialect sqldb.Dialect
	driver  string
	dsn     func(t testing.TB, name string) string
}{
	{sqldb.SQLite, "sqlite", func(t testing.TB, _ string) string { return testdb.SQLiteDSN(t) }},
	{sqldb.Postgres, "pgx", func(t testing.TB, name string) string { return testdb.Postgres(t, "sqlstore_"+name) }},
	{sqldb.MySQL, "mysql", func(t testing.TB, name string) string { return testdb.MySQL(t, "sqlstore_"+name) }},
}

// stores are the SQL stores whose CreateTable runs their schema through sqlstore: each
// makes one on db (a session of its own) for table and creates its table. The ledger's
// schema has a table and an index (on MySQL, an index inside the table): it races most.
var stores = []struct {
	name   string
	rounds int // races on new tables in TestCreateTableRace
	create func(ctx context.Context, db *sql.DB, d sqldb.Dialect, table string) error
}{
	{"ledger", 5, func(ctx context.Context, db *sql.DB, d sqldb.Dialect, table string) error {
		l, err := ledger.New(d, ledger.Options{Table: table})
		if err != nil {
			return err
		}
		return l.CreateTable(ctx, db)
	}},
	{"lease", 2, func(ctx context.Context, db *sql.DB, d sqldb.Dialect, table string) error {
		s, err := lease.NewSQL(db, d, lease.SQLOptions{Table: table})
		if err != nil {
			return err
		}
		return s.CreateTable(ctx)
	}},
	{"segment", 2, func(ctx context.Context, db *sql.DB, d sqldb.Dialect, table string) error {
		s, err := segment.NewSQL(db, d, segment.SQLOptions{Table: table})
		if err != nil {
			return err
		}
		return s.CreateTable(ctx)
	}},
	{"idem", 2, func(ctx context.Context, db *sql.DB, d sqldb.Dialect, table string) error {
		s, err := idem.NewSQL(db, d, idem.SQLOptions{Table: table})
		if err != nil {
			return err
		}
		return s.CreateTable(ctx)
	}},
}

// sessions opens n pools of one connection each on dsn, connected before it returns, so
// that n sessions can run a statement at the same moment.
func sessions(t *testing.T, driver, dsn string, n int) []*sql.DB {
	t.Helper()
	dbs := make([]*sql.DB, n)
	for i := range dbs {
		db, err := sql.Open(driver, dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		db.SetMaxOpenConns(1)
		if err := db.Ping(); err != nil {
			t.Fatal(err)
		}
		dbs[i] = db
	}
	return dbs
}

// race runs run on every session at the same moment and returns the errors.
func race(dbs []*sql.DB, run func(db *sql.DB) error) []error {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var errs []error
	start := make(chan struct{})
	for _, db := range dbs {
		wg.Go(func() {
			<-start
			if err := run(db); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		})
	}
	close(start)
	wg.Wait()
	return errs
}

// TestCreateTableRace: 16 sessions create the same table (and index) at the same moment
// through each store's CreateTable, a few rounds on new tables: no error. The same race
// with the plain statements of the schema is run once first, and its failures are
// logged: that is what CreateTable absorbs, and each of them is shown to be absorbed
// (replayed into a CreateTable, it is run again).
func TestCreateTableRace(t *testing.T) {
	for _, srv := range servers {
		t.Run(srv.dialect.String(), func(t *testing.T) {
			const n = 16
			dbs := sessions(t, srv.driver, srv.dsn(t, "race"), n)
			ctx := context.Background()

			plain, err := ledger.New(srv.dialect, ledger.Options{Table: "plain"})
			if err != nil {
				t.Fatal(err)
			}
			raw := race(dbs, func(db *sql.DB) error {
				for _, stmt := range plain.Schema() {
					if _, err := db.ExecContext(ctx, stmt); err != nil {
						return err
					}
				}
				return nil
			})
			t.Logf("plain IF NOT EXISTS, %d sessions at once: %d failed", n, len(raw))
			if len(raw) > 0 {
				t.Logf("for example: %v", raw[0])
			}
			for _, lost := range raw {
				if err := plain.CreateTable(ctx, &failOnce{Execer: dbs[0], err: lost}); err != nil {
					t.Errorf("CreateTable does not absorb %v: %v", lost, err)
				}
			}

			for _, st := range stores {
				t.Run(st.name, func(t *testing.T) {
					for round := range st.rounds {
						table := fmt.Sprintf("%s_t%d", st.name, round)
						for _, err := range race(dbs, func(db *sql.DB) error { return st.create(ctx, db, srv.dialect, table) }) {
							t.Errorf("round %d: %v", round, err)
						}
					}
				})
			}
		})
	}
}

// failOnce is an Execer whose first statement fails with err without reaching the
// database; every other statement goes to the Execer it wraps (none when nil).
type failOnce struct {
	ledger.Execer
	err error

	mu   sync.Mutex
	runs []string
}

func (f *failOnce) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	f.mu.Lock()
	f.runs = append(f.runs, query)
	first := len(f.runs) == 1
	f.mu.Unlock()
	if first {
		return nil, f.err
	}
	if f.Execer == nil {
		return nil, nil
	}
	return f.Execer.ExecContext(ctx, query, args...)
}

// swapFirst is an Execer that runs stmt in place of the first statement it is given, on
// db.
type swapFirst struct {
	db   *sql.DB
	stmt string
	runs int
}

func (s *swapFirst) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	s.runs++
	if s.runs == 1 {
		query = s.stmt
	}
	return s.db.ExecContext(ctx, query, args...)
}

// TestCreateTableError: an error that is not a lost race (the server's own syntax error)
// is returned at once, unwrapped but for the store's prefix and the table, and stops the
// schema; a cancelled context stops CreateTable.
func TestCreateTableError(t *testing.T) {
	for _, srv := range servers {
		t.Run(srv.dialect.String(), func(t *testing.T) {
			db := sessions(t, srv.driver, srv.dsn(t, "error"), 1)[0]
			ctx := context.Background()
			l, err := ledger.New(srv.dialect, ledger.Options{Table: "t"})
			if err != nil {
				t.Fatal(err)
			}
			ex := &swapFirst{db: db, stmt: "CREATE TABLE oops ("}
			err = l.CreateTable(ctx, ex)
			if err == nil || !strings.HasPrefix(err.Error(), "ledger: creating table t: ") || strings.Contains(err.Error(), "attempt") || ex.runs != 1 {
				t.Errorf("syntax error: %v after %d statements; want the server's error after one", err, ex.runs)
			}
			if err := l.CreateTable(ctx, db); err != nil {
				t.Errorf("the schema itself: %v", err)
			}
			if err := l.CreateTable(ctx, db); err != nil {
				t.Errorf("the table exists: %v", err)
			}
			cancelled, cancel := context.WithCancel(ctx)
			cancel()
			s, err := lease.NewSQL(db, srv.dialect, lease.SQLOptions{Table: "t2"})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.CreateTable(cancelled); !errors.Is(err, context.Canceled) {
				t.Errorf("cancelled context: %v", err)
			}
		})
	}
}

// TestCreateTableOnce: the stores that create their table on first use (lease, segment)
// report a failure with their package and the table and try again on the next call, and
// once the schema has succeeded they do not run it again. The failure is a table in a
// schema (a database on MySQL, an attached database on SQLite) that does not exist yet.
func TestCreateTableOnce(t *testing.T) {
	for _, srv := range servers {
		t.Run(srv.dialect.String(), func(t *testing.T) {
			dsn := srv.dsn(t, "once")
			db, err := sql.Open(srv.driver, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			// One connection that lives as long as the test: SQLite attaches a database
			// to a connection.
			db.SetMaxOpenConns(1)
			ctx := context.Background()
			// missing returns the name of a schema that does not exist yet, and what makes it.
			missing := func(pkg string) (string, func() error) {
				name := "later_" + pkg
				switch srv.dialect {
				case sqldb.SQLite:
					return name, func() error {
						_, err := db.Exec("ATTACH DATABASE ? AS "+name, testdb.SQLitePath(t))
						return err
					}
				case sqldb.MySQL:
					// A database of the test's own, dropped until it is wanted.
					testdb.MySQL(t, "sqlstore_"+name)
					name = "idgen_sqlstore_" + name + os.Getenv(testdb.SuffixEnv)
					if _, err := db.Exec("DROP DATABASE " + name); err != nil {
						t.Fatal(err)
					}
					return name, func() error { _, err := db.Exec("CREATE DATABASE " + name); return err }
				}
				return name, func() error { _, err := db.Exec("CREATE SCHEMA " + name); return err }
			}
			type creator interface{ CreateTable(context.Context) error }
			for _, st := range []struct {
				pkg  string
				open func(table string) (creator, error)
			}{
				{"lease", func(table string) (creator, error) {
					return lease.NewSQL(db, srv.dialect, lease.SQLOptions{Table: table})
				}},
				{"segment", func(table string) (creator, error) {
					return segment.NewSQL(db, srv.dialect, segment.SQLOptions{Table: table})
				}},
			} {
				schema, makeSchema := missing(st.pkg)
				table := schema + ".once"
				s, err := st.open(table)
				if err != nil {
					t.Fatal(err)
				}
				err = s.CreateTable(ctx)
				if want := st.pkg + ": creating table " + table + ": "; err == nil || !strings.HasPrefix(err.Error(), want) {
					t.Errorf("%s: a table in a missing schema: %v, want an error starting %q", st.pkg, err, want)
				}
				if err := makeSchema(); err != nil {
					t.Fatal(err)
				}
				if err := s.CreateTable(ctx); err != nil {
					t.Errorf("%s: after the failure: %v", st.pkg, err)
				}
				if _, err := db.Exec("DROP TABLE " + table); err != nil {
					t.Fatalf("%s: %v", st.pkg, err)
				}
				if err := s.CreateTable(ctx); err != nil {
					t.Errorf("%s: once created: %v", st.pkg, err)
				}
				if _, err := db.Exec("SELECT count(*) FROM " + table); err == nil {
					t.Errorf("%s: CreateTable ran the schema again after it had succeeded", st.pkg)
				}
			}
		})
	}
}
