package testdb

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestValidName(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"uniq", true},
		{"uniq_gorm2", true},
		{strings.Repeat("a", maxName), true},
		{"", false},
		{strings.Repeat("a", maxName+1), false},
		{"Uniq", false},
		{"uniq-gorm", false},
		{"uniq gorm", false},
		{"x;drop", false},
		{"x`y", false},
		{"é", false},
	} {
		if err := validName(tc.name); (err == nil) != tc.ok {
			t.Errorf("validName(%q) = %v, want ok %v", tc.name, err, tc.ok)
		}
	}
}

func TestWithPostgresDatabase(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"postgres://postgres@127.0.0.1:5432/test?sslmode=disable", "postgres://postgres@127.0.0.1:5432/idgen_x?sslmode=disable"},
		{"postgresql://u:p%40ss@h/test", "postgresql://u:p%40ss@h/idgen_x"},
		{"postgres://h", "postgres://h/idgen_x"},
		{"host=127.0.0.1 user=postgres dbname=test sslmode=disable", "host=127.0.0.1 user=postgres dbname=test sslmode=disable dbname=idgen_x"},
	} {
		got, err := withPostgresDatabase(tc.in, "idgen_x")
		if err != nil || got != tc.want {
			t.Errorf("withPostgresDatabase(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestWithMySQLDatabase(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"root@tcp(127.0.0.1:3306)/test?parseTime=true", "root@tcp(127.0.0.1:3306)/idgen_x?parseTime=true"},
		{"u:p@tcp(h:3306)/", "u:p@tcp(h:3306)/idgen_x"},
	} {
		got, err := withMySQLDatabase(tc.in, "idgen_x")
		if err != nil || got != tc.want {
			t.Errorf("withMySQLDatabase(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	if _, err := withMySQLDatabase("not a dsn", "idgen_x"); err == nil {
		t.Error("withMySQLDatabase accepted a malformed DSN")
	}
}

// recorder observes the skip path: unlike testing.T's, its Skip returns instead of ending
// the goroutine, and it fails on anything else.
type recorder struct {
	testing.TB
	skipped string
}

func (r *recorder) Helper()          {}
func (r *recorder) Skip(args ...any) { r.skipped = fmt.Sprint(args...) }

func TestSkipWithoutVariable(t *testing.T) {
	for _, s := range []server{postgresServer, mysqlServer} {
		r := &recorder{TB: t}
		if got := create(r, s, "testdb", ""); got != "" {
			t.Errorf("%s unset: got DSN %q", s.env, got)
		}
		if !strings.Contains(r.skipped, s.env) {
			t.Errorf("%s unset: skip message %q does not name the variable", s.env, r.skipped)
		}
	}
}

func TestUnreachable(t *testing.T) {
	// Nothing listens on port 1: the error must say the server does not answer.
	for _, tc := range []struct {
		s   server
		dsn string
	}{
		{postgresServer, "postgres://postgres@127.0.0.1:1/test?sslmode=disable&connect_timeout=5"},
		{mysqlServer, "root@tcp(127.0.0.1:1)/test?timeout=5s"},
	} {
		_, _, err := tc.s.create("testdb_unreachable", tc.dsn)
		if err == nil || !strings.Contains(err.Error(), "does not answer") {
			t.Errorf("%s unreachable: err = %v", tc.s.env, err)
		}
	}
}

func TestInvalidName(t *testing.T) {
	// Rejected before any connection, so this needs no server.
	for _, s := range []server{postgresServer, mysqlServer} {
		if _, _, err := s.create("Bad-Name", "postgres://127.0.0.1:1/x"); err == nil || !strings.Contains(err.Error(), "Bad-Name") {
			t.Errorf("%s: create(%q) = %v", s.env, "Bad-Name", err)
		}
	}
}

func TestSQLitePath(t *testing.T) {
	p := SQLitePath(t)
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Errorf("SQLitePath = %q: want a missing file, stat says %v", p, err)
	}
	if _, err := os.Stat(filepath.Dir(p)); err != nil {
		t.Errorf("SQLitePath = %q: directory: %v", p, err)
	}
	if q := SQLitePath(t); q == p {
		t.Errorf("SQLitePath returned %q twice", p)
	}
}

func TestPostgres(t *testing.T) {
	testServer(t, postgresServer, Postgres,
		"SELECT current_database()",
		"SELECT count(*) FROM pg_database WHERE datname = $1")
}

func TestMySQL(t *testing.T) {
	testServer(t, mysqlServer, MySQL,
		"SELECT DATABASE()",
		"SELECT count(*) FROM information_schema.schemata WHERE schema_name = ?")
}

// testServer checks that the database exists, is the one the DSN reaches, starts empty
// even if a previous run left it behind, and is gone after the test.
func testServer(t *testing.T, s server, create func(testing.TB, string) string, current, exists string) {
	env, driver := s.env, s.driver
	if os.Getenv(env) == "" {
		t.Skip("set " + env + " to run against " + s.what)
	}
	const name = "testdb"
	want := "idgen_" + name + os.Getenv(SuffixEnv) // the database create makes
	count := func(admin *sql.DB) int {
		t.Helper()
		var n int
		if err := admin.QueryRowContext(context.Background(), exists, want).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	admin, err := sql.Open(driver, os.Getenv(env))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()

	outer := t
	for run := range 2 {
		t.Run(fmt.Sprint("run", run), func(t *testing.T) {
			dsn := create(t, name)
			db, err := sql.Open(driver, dsn)
			if err != nil {
				t.Fatal(err)
			}
			// The first run's pool stays open until the drop is done: the drop must not
			// depend on callers closing their pools first.
			if run == 0 {
				outer.Cleanup(func() { db.Close() })
			} else {
				defer db.Close()
			}
			var got string
			if err := db.QueryRow(current).Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("connected to %q, want %q", got, want)
			}
			// A fresh database: creating the same table in both runs succeeds only if the
			// first run's database was dropped.
			if _, err := db.Exec("CREATE TABLE t (id INT PRIMARY KEY)"); err != nil {
				t.Fatal(err)
			}
			if n := count(admin); n != 1 {
				t.Errorf("database count during the test = %d, want 1", n)
			}
		})
		if n := count(admin); n != 0 {
			t.Errorf("after run %d: database count = %d, want 0", run, n)
		}
	}
}
