package lease

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

	"github.com/idgen/idgen/internal/testdb"
)

// target says where a backend lives, in a form a child process can be handed: the kind
// of store, its DSN, and for Redis the key prefix of this test run.
type target struct {
	Kind   string // sqlite, postgres, mysql, redis, rediscluster (DSN: comma-separated addresses)
	DSN    string
	Prefix string
	// Persistent says the server keeps its data (a test's own with the AOF on): the
	// store is made without AllowNoPersistence. The machine's shared Redis keeps nothing
	// on disk, and tests on it opt in: nothing they store outlives them.
	Persistent bool
}

// kinds are the stores every backend test runs against, SQLite always and the others when
// their variable is set.
var kinds = []struct {
	name  string
	setup func(t testing.TB) target
}{
	{"sqlite", func(t testing.TB) target { return target{Kind: "sqlite", DSN: testdb.SQLiteDSN(t)} }},
	{"postgres", func(t testing.TB) target {
		return target{Kind: "postgres", DSN: testdb.Postgres(t, "lease")}
	}},
	{"mysql", func(t testing.TB) target {
		return target{Kind: "mysql", DSN: testdb.MySQL(t, "lease")}
	}},
	{"redis", setupRedis},
	{"rediscluster", func(t testing.TB) target {
		addrs, prefix := testdb.RedisCluster(t, "lease")
		return target{Kind: "rediscluster", DSN: strings.Join(addrs, ","), Prefix: prefix, Persistent: true}
	}},
}

// setupRedis gives the test the Redis in IDGEN_TEST_REDIS_DSN and a key prefix of its own
// (testdb.Redis).
func setupRedis(t testing.TB) target {
	t.Helper()
	dsn, prefix := testdb.Redis(t, "lease")
	return target{Kind: "redis", DSN: dsn, Prefix: prefix}
}

// open returns a backend on tg in namespace ns (a table or a key prefix of its own), and
// what closes its connections.
func open(tg target, ns string) (Backend, io.Closer, error) {
	if tg.Kind == "rediscluster" {
		// The hash tag keeps the three hashes in one slot.
		c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: strings.Split(tg.DSN, ",")})
		b, err := NewRedis(context.Background(), c, RedisOptions{Prefix: "{" + tg.Prefix + ns + "}:", AllowNoPersistence: !tg.Persistent})
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
		b, err := NewRedis(context.Background(), c, RedisOptions{Prefix: tg.Prefix + ns + ":", AllowNoPersistence: !tg.Persistent})
		if err != nil {
			c.Close()
			return nil, nil, err
		}
		return b, c, nil
	}
	driver, dialect := map[string]string{"sqlite": "sqlite", "postgres": "pgx", "mysql": "mysql"}[tg.Kind], map[string]Dialect{"sqlite": SQLite, "postgres": Postgres, "mysql": MySQL}[tg.Kind]
	if driver == "" {
		return nil, nil, fmt.Errorf("unknown backend kind %q", tg.Kind)
	}
	db, err := sql.Open(driver, tg.DSN)
	if err != nil {
		return nil, nil, err
	}
	db.SetMaxOpenConns(4)
	b, err := NewSQL(db, dialect, SQLOptions{Table: "lease_" + ns})
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	return b, db, nil
}

// openT is open for a test, closing the connections when it ends.
func openT(t testing.TB, tg target, ns string) Backend {
	t.Helper()
	b, c, err := open(tg, ns)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return b
}
