package ledger_test

import (
	"database/sql"
	"testing"

	_ "github.com/go-sql-driver/mysql"
	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"

	"github.com/idgen/idgen/integration/internal/testdb"
	"github.com/idgen/idgen/runtime/sqldb"
)

// sqlBackend is one database a ledger is tested on.
type sqlBackend struct {
	name, driver string
	dialect      sqldb.Dialect
	env          string // the variable naming the server; "" for SQLite, always run
	// dsn returns a DSN for a fresh database, named after name on a server.
	dsn func(tb testing.TB, name string) string
}

var sqlBackends = []sqlBackend{
	{name: "postgres", driver: "pgx", dialect: sqldb.Postgres, env: testdb.PostgresEnv, dsn: testdb.Postgres},
	{name: "mysql", driver: "mysql", dialect: sqldb.MySQL, env: testdb.MySQLEnv, dsn: testdb.MySQL},
	{name: "sqlite", driver: "sqlite", dialect: sqldb.SQLite, dsn: func(tb testing.TB, _ string) string { return testdb.SQLiteDSN(tb) }},
}

// open returns a handle on the database at dsn, closed when the test ends.
func (b sqlBackend) open(tb testing.TB, dsn string) *sql.DB {
	tb.Helper()
	db, err := sql.Open(b.driver, dsn)
	if err != nil {
		tb.Fatal(err)
	}
	db.SetMaxOpenConns(16)
	db.SetMaxIdleConns(16)
	tb.Cleanup(func() { db.Close() })
	return db
}
