// Package dbtest gives tests in this repository's other modules (the broker adapters in
// plugins/rabbitmq and plugins/jetstream) the fresh databases that internal/testdb gives
// the core module's tests, which a nested module cannot import. It is a thin exported face
// of internal/testdb, for tests only: nothing outside tests should import it.
//
// A database is named "idgen_" + name (lowercase letters, digits and underscores), dropped
// if it exists, created, and dropped again when the test ends. Without the variable naming
// the server the test is skipped with a message naming it; with the variable set and the
// server unreachable the test fails.
package dbtest

import (
	"testing"

	"github.com/idgen/idgen/internal/testdb"
)

// The environment variables that name the servers.
const (
	PostgresEnv = testdb.PostgresEnv // IDGEN_TEST_POSTGRES_DSN
	MySQLEnv    = testdb.MySQLEnv    // IDGEN_TEST_MYSQL_DSN
)

// Postgres returns a pgx DSN for a fresh database "idgen_"+name on the server in
// IDGEN_TEST_POSTGRES_DSN; importing this package registers database/sql's "pgx" driver.
func Postgres(t testing.TB, name string) string {
	t.Helper()
	return testdb.Postgres(t, name)
}

// MySQL returns a go-sql-driver/mysql DSN for a fresh database "idgen_"+name on the server
// in IDGEN_TEST_MYSQL_DSN.
func MySQL(t testing.TB, name string) string {
	t.Helper()
	return testdb.MySQL(t, name)
}
