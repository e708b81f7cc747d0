package testdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
)

// The environment variables that name the servers.
const (
	PostgresEnv = "IDGEN_TEST_POSTGRES_DSN"
	MySQLEnv    = "IDGEN_TEST_MYSQL_DSN"
)

// SuffixEnv, when set (to a few lowercase letters, digits or underscores), is appended to
// every database name, so that two checkouts can run the same tests on one server at once.
const SuffixEnv = "IDGEN_TEST_DB_SUFFIX"

// maxName keeps "idgen_"+name within PostgreSQL's 63-byte identifiers (MySQL allows 64).
const maxName = 63 - len("idgen_")

// timeout bounds every administrative step, so a hung server fails the test instead of
// hanging it.
const timeout = 30 * time.Second

// Postgres returns a DSN for a fresh database named "idgen_"+name on the server in
// IDGEN_TEST_POSTGRES_DSN, and drops the database when the test ends. It skips the test
// when the variable is unset and fails it when the server cannot be reached. The DSN may
// be a URL (postgres://...) or keyword/value settings (host=... user=...); the result has
// the same form with only the database changed.
func Postgres(t testing.TB, name string) string {
	t.Helper()
	return create(t, postgresServer, name, os.Getenv(PostgresEnv))
}

// MySQL returns a DSN for a fresh database named "idgen_"+name on the server in
// IDGEN_TEST_MYSQL_DSN (a go-sql-driver/mysql DSN whose parameters, such as parseTime=true,
// are kept), and drops the database when the test ends. It skips the test when the
// variable is unset and fails it when the server cannot be reached.
func MySQL(t testing.TB, name string) string {
	t.Helper()
	return create(t, mysqlServer, name, os.Getenv(MySQLEnv))
}

// SQLiteDSN returns a DSN for a fresh SQLite file in the test's temporary directory, for
// the pure-Go drivers (modernc, glebarez): WAL, so readers run beside the writer, and a
// busy timeout, so writers wait for the lock instead of failing; extra pragmas such as
// "foreign_keys(1)" are added.
func SQLiteDSN(t testing.TB, pragmas ...string) string {
	dsn := "file:" + SQLitePath(t) + "?_pragma=busy_timeout(20000)&_pragma=journal_mode(WAL)"
	for _, p := range pragmas {
		dsn += "&_pragma=" + p
	}
	return dsn
}

// SQLitePath returns the path of a database file that does not exist yet, in a directory
// removed when the test ends.
func SQLitePath(t testing.TB) string {
	t.Helper()
	return filepath.Join(t.TempDir(), "test.db")
}

// server is what differs between PostgreSQL and MySQL.
type server struct {
	env    string // the variable holding the DSN
	what   string // for the skip message
	driver string // database/sql driver name
	// target returns dsn with its database replaced by db.
	target func(dsn, db string) (string, error)
	// drop drops database db if it exists.
	drop func(db string) string
}

var postgresServer = server{
	env:    PostgresEnv,
	what:   "PostgreSQL",
	driver: "pgx",
	target: withPostgresDatabase,
	// FORCE ends sessions a test left open, so a leaked pool cannot keep the database
	// alive (PostgreSQL 13 and later).
	drop: func(db string) string { return "DROP DATABASE IF EXISTS " + db + " WITH (FORCE)" },
}

var mysqlServer = server{
	env:    MySQLEnv,
	what:   "MySQL or MariaDB",
	driver: "mysql",
	target: withMySQLDatabase,
	drop:   func(db string) string { return "DROP DATABASE IF EXISTS " + db },
}

// UsedMarker starts the line a test logs when it gets a server from this package, so a
// run's summary (internal/testsummary, over go test -json) can count the tests that used
// each server; the server's name follows it.
const UsedMarker = "testdb: server used: "

// create skips without a DSN, and otherwise creates the database and schedules its drop.
func create(t testing.TB, s server, name, dsn string) string {
	t.Helper()
	if dsn == "" {
		t.Skip("set " + s.env + " to run against " + s.what)
		return "" // reached only when t is not a *testing.T
	}
	target, drop, err := s.create(name, dsn)
	if err != nil {
		t.Fatal(err)
		return ""
	}
	t.Log(UsedMarker + s.what)
	t.Cleanup(func() {
		if err := drop(); err != nil {
			t.Error(err)
		}
	})
	return target
}

// create makes database "idgen_"+name on the server at dsn, returning the DSN that reaches
// it and a function that drops it.
func (s server) create(name, dsn string) (target string, drop func() error, err error) {
	name += os.Getenv(SuffixEnv)
	if err := validName(name); err != nil {
		return "", nil, err
	}
	db := "idgen_" + name
	target, err = s.target(dsn, db)
	if err != nil {
		return "", nil, fmt.Errorf("testdb: %s: %w", s.env, err)
	}
	admin, err := sql.Open(s.driver, dsn)
	if err != nil {
		return "", nil, fmt.Errorf("testdb: %s: %w", s.env, err)
	}
	admin.SetMaxOpenConns(1)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := admin.PingContext(ctx); err != nil {
		admin.Close()
		return "", nil, fmt.Errorf("testdb: %s is set but the server does not answer: %w", s.env, err)
	}
	for _, stmt := range []string{s.drop(db), "CREATE DATABASE " + db} {
		if _, err := admin.ExecContext(ctx, stmt); err != nil {
			admin.Close()
			return "", nil, fmt.Errorf("testdb: %s: %w", stmt, err)
		}
	}
	drop = func() error {
		defer admin.Close()
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		stmt := s.drop(db)
		if _, err := admin.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("testdb: %s: %w", stmt, err)
		}
		return nil
	}
	return target, drop, nil
}

// validName accepts what can be spliced into SQL unquoted on every server: lowercase
// letters, digits and underscores, at most maxName bytes.
func validName(name string) error {
	if name == "" {
		return errors.New("testdb: empty database name")
	}
	if len(name) > maxName {
		return fmt.Errorf("testdb: database name %q longer than %d bytes", name, maxName)
	}
	for _, r := range name {
		if !('a' <= r && r <= 'z' || '0' <= r && r <= '9' || r == '_') {
			return fmt.Errorf("testdb: database name %q: want lowercase letters, digits and underscores", name)
		}
	}
	return nil
}

// withPostgresDatabase returns dsn with its database replaced by db.
func withPostgresDatabase(dsn, db string) (string, error) {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err != nil {
			return "", err
		}
		u.Path = "/" + db
		u.RawPath = ""
		return u.String(), nil
	}
	// In keyword/value form a later setting overrides an earlier one; ask the driver, so
	// that a DSN it reads differently fails here rather than in the test.
	out := strings.TrimSpace(dsn) + " dbname=" + db
	cfg, err := pgconn.ParseConfig(out)
	if err != nil {
		return "", err
	}
	if cfg.Database != db {
		return "", errors.New("cannot set the database in the keyword/value DSN")
	}
	return out, nil
}

// withMySQLDatabase returns dsn with its database replaced by db, keeping its parameters.
func withMySQLDatabase(dsn, db string) (string, error) {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return "", err
	}
	cfg.DBName = db
	return cfg.FormatDSN(), nil
}
