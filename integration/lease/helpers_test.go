package lease_test

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"strings"
	"testing"

	_ "github.com/go-sql-driver/mysql" // database/sql driver "mysql"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
	"github.com/redis/go-redis/v9"
	_ "modernc.org/sqlite" // database/sql driver "sqlite"

	"github.com/idgen/idgen/integration/internal/testdb"
	"github.com/idgen/idgen/plugins/redis/redislease"
	"github.com/idgen/idgen/runtime/lease"
	"github.com/idgen/idgen/runtime/lease/leasetest"
	"github.com/idgen/idgen/runtime/sqldb"
)

// kinds are the stores every backend test runs against, SQLite always and the others when
// their variable is set.
var kinds = []leasetest.Kind{
	{Name: "sqlite", Setup: func(t testing.TB) leasetest.Target {
		return leasetest.Target{Kind: "sqlite", DSN: testdb.SQLiteDSN(t)}
	}},
	{Name: "postgres", Setup: func(t testing.TB) leasetest.Target {
		return leasetest.Target{Kind: "postgres", DSN: testdb.Postgres(t, "lease")}
	}},
	{Name: "mysql", Setup: func(t testing.TB) leasetest.Target {
		return leasetest.Target{Kind: "mysql", DSN: testdb.MySQL(t, "lease")}
	}},
	{Name: "redis", Setup: setupRedis},
	{Name: "rediscluster", Setup: func(t testing.TB) leasetest.Target {
		addrs, prefix := testdb.RedisCluster(t, "lease")
		return leasetest.Target{Kind: "rediscluster", DSN: strings.Join(addrs, ","), Prefix: prefix, Persistent: true}
	}},
}

// setupRedis gives the test the Redis in IDGEN_TEST_REDIS_DSN and a key prefix of its own
// (testdb.Redis).
func setupRedis(t testing.TB) leasetest.Target {
	t.Helper()
	dsn, prefix := testdb.Redis(t, "lease")
	return leasetest.Target{Kind: "redis", DSN: dsn, Prefix: prefix}
}

// open returns a backend on tg in namespace ns (a table or a key prefix of its own), and
// what closes its connections.
func open(tg leasetest.Target, ns string) (lease.Backend, io.Closer, error) {
	if tg.Kind == "rediscluster" {
		// The hash tag keeps the three hashes in one slot.
		c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: strings.Split(tg.DSN, ",")})
		b, err := redislease.New(context.Background(), c, redislease.Options{Prefix: "{" + tg.Prefix + ns + "}:", AllowNoPersistence: !tg.Persistent})
		if err != nil {
			c.Close()
			return nil, nil, err
		}
		return b, c, nil
	}
	if tg.Kind == "redis" {
		opts, err := redis.ParseURL(tg.DSN)
		if err != nil {
			return nil, nil, err
		}
		c := redis.NewClient(opts)
		b, err := redislease.New(context.Background(), c, redislease.Options{Prefix: tg.Prefix + ns + ":", AllowNoPersistence: !tg.Persistent})
		if err != nil {
			c.Close()
			return nil, nil, err
		}
		return b, c, nil
	}
	driver, dialect := map[string]string{"sqlite": "sqlite", "postgres": "pgx", "mysql": "mysql"}[tg.Kind], map[string]sqldb.Dialect{"sqlite": sqldb.SQLite, "postgres": sqldb.Postgres, "mysql": sqldb.MySQL}[tg.Kind]
	if driver == "" {
		return nil, nil, fmt.Errorf("unknown backend kind %q", tg.Kind)
	}
	db, err := sql.Open(driver, tg.DSN)
	if err != nil {
		return nil, nil, err
	}
	db.SetMaxOpenConns(4)
	b, err := lease.NewSQL(db, dialect, lease.SQLOptions{Table: "lease_" + ns})
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	return b, db, nil
}

// openT is open for a test, closing the connections when it ends.
func openT(t testing.TB, tg leasetest.Target, ns string) lease.Backend {
	t.Helper()
	b, c, err := open(tg, ns)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return b
}
