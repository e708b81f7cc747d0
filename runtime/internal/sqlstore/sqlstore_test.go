package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	_ "github.com/go-sql-driver/mysql" // database/sql driver "mysql"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
	_ "modernc.org/sqlite"             // database/sql driver "sqlite"

	"github.com/idgen/idgen/integration/internal/testdb"
)

func TestCheckTable(t *testing.T) {
	for _, name := range GoodTables() {
		if err := CheckTable(name); err != nil {
			t.Errorf("CheckTable(%q) = %v, want nil", name, err)
		}
	}
	for _, name := range HostileTables() {
		err := CheckTable(name)
		var te *TableError
		if !errors.Is(err, ErrInvalidTable) || !errors.As(err, &te) || te.Table != name {
			t.Errorf("CheckTable(%q) = %v, want a *TableError naming it", name, err)
			continue
		}
		if !strings.HasPrefix(err.Error(), "invalid table name ") || te.Reason == "" {
			t.Errorf("CheckTable(%q): message %q", name, err)
		}
	}
}

func TestDialect(t *testing.T) {
	for _, tc := range []struct {
		d     Dialect
		name  string
		ok    bool
		query string
	}{
		{Postgres, "postgres", true, "SELECT $2, $1"},
		{MySQL, "mysql", true, "SELECT ?, ?"},
		{SQLite, "sqlite", true, "SELECT ?2, ?1"},
		{0, "Dialect(0)", false, ""},
		{9, "Dialect(9)", false, ""},
	} {
		if got := tc.d.String(); got != tc.name {
			t.Errorf("String() = %q, want %q", got, tc.name)
		}
		err := CheckDialect(tc.d)
		if (err == nil) != tc.ok || !tc.ok && !errors.Is(err, ErrUnknownDialect) {
			t.Errorf("CheckDialect(%v) = %v, want ok %v", tc.d, err, tc.ok)
		}
		if tc.ok {
			if q := Bind(tc.d, "SELECT $2, $1").Query; q != tc.query {
				t.Errorf("%v: Bind = %q, want %q", tc.d, q, tc.query)
			}
		}
	}
	if got := Bind(MySQL, "SELECT $2, $1").Args("a", "b"); fmt.Sprint(got) != "[b a]" {
		t.Errorf("MySQL args %v", got)
	}
}

// servers are the databases the creation tests run on: SQLite always, the others when
// their variable is set.
var servers = []struct {
	dialect Dialect
	driver  string
	dsn     func(t testing.TB) string
}{
	{SQLite, "sqlite", func(t testing.TB) string { return testdb.SQLiteDSN(t) }},
	{Postgres, "pgx", func(t testing.TB) string { return testdb.Postgres(t, "sqlstore") }},
	{MySQL, "mysql", func(t testing.TB) string { return testdb.MySQL(t, "sqlstore") }},
}

// ddl is a table and an index, in each dialect's words.
func ddl(d Dialect, table string) []string {
	stmts := []string{"CREATE TABLE IF NOT EXISTS " + table + " (k BIGINT NOT NULL PRIMARY KEY, v BIGINT NOT NULL)"}
	if d != MySQL { // MySQL has no CREATE INDEX IF NOT EXISTS (MariaDB has)
		stmts = append(stmts, "CREATE INDEX IF NOT EXISTS "+table+"_v ON "+table+" (v)")
	}
	return stmts
}

// TestCreateSchemaRace: 16 sessions, each on a connection of its own, create the same
// table and index at the same moment, five rounds on new tables: no error. The same race
// without CreateSchema is run once first, and its failures are logged: that is what
// CreateSchema absorbs.
func TestCreateSchemaRace(t *testing.T) {
	for _, srv := range servers {
		t.Run(srv.dialect.String(), func(t *testing.T) {
			db, err := sql.Open(srv.driver, srv.dsn(t))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			const sessions = 16
			db.SetMaxOpenConns(sessions)
			ctx := context.Background()
			conns := make([]*sql.Conn, sessions)
			for i := range conns {
				if conns[i], err = db.Conn(ctx); err != nil {
					t.Fatal(err)
				}
				defer conns[i].Close()
			}
			race := func(table string, run func(*sql.Conn, []string) error) []error {
				var wg sync.WaitGroup
				var mu sync.Mutex
				var errs []error
				start := make(chan struct{})
				for _, c := range conns {
					wg.Go(func() {
						<-start
						if err := run(c, ddl(srv.dialect, table)); err != nil {
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
			raw := race("raw", func(c *sql.Conn, stmts []string) error {
				for _, s := range stmts {
					if _, err := c.ExecContext(ctx, s); err != nil {
						return err
					}
				}
				return nil
			})
			t.Logf("plain IF NOT EXISTS, %d sessions at once: %d failed", sessions, len(raw))
			if len(raw) > 0 {
				t.Logf("for example: %v", raw[0])
			}
			for round := range 5 {
				errs := race(fmt.Sprintf("t%d", round), func(c *sql.Conn, stmts []string) error {
					return CreateSchema(ctx, c, stmts)
				})
				for _, err := range errs {
					t.Errorf("round %d: %v", round, err)
				}
			}
		})
	}
}

// TestCreateSchemaErrors: an error other than a race is returned at once, unwrapped; a
// cancelled context stops the retries.
func TestCreateSchemaErrors(t *testing.T) {
	db, err := sql.Open("sqlite", testdb.SQLiteDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	err = CreateSchema(ctx, db, []string{"CREATE TABLE IF NOT EXISTS ok (k INTEGER)", "CREATE TABLE oops ("})
	if err == nil || strings.Contains(err.Error(), "attempt") {
		t.Errorf("syntax error: %v", err)
	}
	if err := CreateSchema(ctx, db, []string{"CREATE TABLE IF NOT EXISTS ok (k INTEGER)"}); err != nil {
		t.Errorf("table exists: %v", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := CreateSchema(cancelled, db, []string{"CREATE TABLE IF NOT EXISTS ok2 (k INTEGER)"}); err == nil {
		t.Error("cancelled context: no error")
	}
	if err := Pause(cancelled, 3); !errors.Is(err, context.Canceled) {
		t.Errorf("Pause on a cancelled context: %v", err)
	}
}

func TestResolveTable(t *testing.T) {
	if got, err := ResolveTable("lease", SQLite, "", "idgen_lease"); err != nil || got != "idgen_lease" {
		t.Errorf("empty table: %q, %v; want the default", got, err)
	}
	if got, err := ResolveTable("lease", MySQL, "app.t", "idgen_lease"); err != nil || got != "app.t" {
		t.Errorf("qualified table: %q, %v", got, err)
	}
	_, err := ResolveTable("segment", Dialect(9), "t", "d")
	if !errors.Is(err, ErrUnknownDialect) || !strings.HasPrefix(err.Error(), "segment: unknown SQL dialect") {
		t.Errorf("unknown dialect: %v", err)
	}
	_, err = ResolveTable("idem", Postgres, "a-b", "d")
	var te *TableError
	if !errors.As(err, &te) || te.Table != "a-b" || !strings.HasPrefix(err.Error(), "idem: invalid table name ") {
		t.Errorf("bad table: %v", err)
	}
}

// TestCreated: the schema runs until it has succeeded once, on a real SQLite database
// whose statements are counted by a table they insert into.
func TestCreated(t *testing.T) {
	db, err := sql.Open("sqlite", testdb.SQLiteDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	var c Created
	if err := c.Create(ctx, db, "lease", "t", []string{"CREATE TABLE oops ("}); err == nil || !strings.HasPrefix(err.Error(), "lease: creating table t: ") {
		t.Fatalf("a failing schema: %v", err)
	}
	stmts := []string{"CREATE TABLE IF NOT EXISTS runs (n INTEGER)", "INSERT INTO runs VALUES (1)"}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if err := c.Create(ctx, db, "lease", "t", stmts); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	var n int
	if err := db.QueryRow("SELECT count(*) FROM runs").Scan(&n); err != nil || n != 1 {
		t.Errorf("the schema ran %d times (%v), want once after the failure", n, err)
	}
}
