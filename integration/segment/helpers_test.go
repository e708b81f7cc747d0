package segment_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql" // database/sql driver "mysql"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
	"github.com/redis/go-redis/v9"
	_ "modernc.org/sqlite" // database/sql driver "sqlite"

	"github.com/idgen/idgen/integration/internal/testdb"
	"github.com/idgen/idgen/plugins/redis/redissegment"
	"github.com/idgen/idgen/runtime/segment"
	"github.com/idgen/idgen/runtime/sqldb"
)

// target says where a store lives, in a form a child process can be handed.
type target struct {
	Kind   string // sqlite, postgres, mysql, redis, rediscluster (DSN: comma-separated addresses)
	DSN    string
	Prefix string // Redis key prefix of this test
	// Persistent says the server keeps its data (a test's own with the AOF on): the
	// store is made without AllowNoPersistence. The machine's shared Redis keeps nothing
	// on disk, and tests on it opt in: nothing they store outlives them.
	Persistent bool
}

// kinds are the stores every store test runs against, SQLite always and the others when
// their variable is set. name is the suffix of the test's database.
var kinds = []struct {
	name  string
	setup func(t testing.TB, name string) target
}{
	{"sqlite", func(t testing.TB, _ string) target { return sqliteTarget(t) }},
	{"postgres", func(t testing.TB, name string) target {
		return target{Kind: "postgres", DSN: testdb.Postgres(t, "segment_"+name)}
	}},
	{"mysql", func(t testing.TB, name string) target {
		return target{Kind: "mysql", DSN: testdb.MySQL(t, "segment_"+name)}
	}},
	{"redis", func(t testing.TB, _ string) target { return setupRedis(t) }},
	{"rediscluster", func(t testing.TB, _ string) target {
		addrs, prefix := testdb.RedisCluster(t, "segment")
		return target{Kind: "rediscluster", DSN: strings.Join(addrs, ","), Prefix: prefix, Persistent: true}
	}},
}

// sqliteTarget is a fresh SQLite file (testdb.SQLiteDSN: WAL and a busy timeout).
func sqliteTarget(t testing.TB) target {
	return target{Kind: "sqlite", DSN: testdb.SQLiteDSN(t)}
}

// setupRedis gives the test the Redis in IDGEN_TEST_REDIS_DSN and a key prefix of its own
// (testdb.Redis).
func setupRedis(t testing.TB) target {
	t.Helper()
	dsn, prefix := testdb.Redis(t, "segment")
	return target{Kind: "redis", DSN: dsn, Prefix: prefix}
}

// open returns a store on tg and what closes its connections.
func open(tg target) (segment.Store, io.Closer, error) {
	if tg.Kind == "rediscluster" {
		c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: strings.Split(tg.DSN, ",")})
		s, err := redissegment.New(context.Background(), c, redissegment.Options{Prefix: tg.Prefix, AllowNoPersistence: !tg.Persistent})
		if err != nil {
			c.Close()
			return nil, nil, err
		}
		return s, c, nil
	}
	if tg.Kind == "redis" {
		opts, err := redis.ParseURL(tg.DSN)
		if err != nil {
			return nil, nil, err
		}
		c := redis.NewClient(opts)
		s, err := redissegment.New(context.Background(), c, redissegment.Options{Prefix: tg.Prefix, AllowNoPersistence: !tg.Persistent})
		if err != nil {
			c.Close()
			return nil, nil, err
		}
		return s, c, nil
	}
	driver, dialect := map[string]string{"sqlite": "sqlite", "postgres": "pgx", "mysql": "mysql"}[tg.Kind], map[string]sqldb.Dialect{"sqlite": sqldb.SQLite, "postgres": sqldb.Postgres, "mysql": sqldb.MySQL}[tg.Kind]
	if driver == "" {
		return nil, nil, fmt.Errorf("unknown store kind %q", tg.Kind)
	}
	db, err := sql.Open(driver, tg.DSN)
	if err != nil {
		return nil, nil, err
	}
	db.SetMaxOpenConns(8)
	s, err := segment.NewSQL(db, dialect, segment.SQLOptions{})
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	return s, db, nil
}

// openT is open for a test, closing the connections when it ends.
func openT(t testing.TB, tg target) segment.Store {
	t.Helper()
	s, c, err := open(tg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return s
}

// openSQLite returns a SQL store on a fresh SQLite file, and the store's database, for
// tests that edit the table behind the store's back or close the database under it.
func openSQLite(t testing.TB) (*segment.SQL, *sql.DB) {
	t.Helper()
	s, c, err := open(sqliteTarget(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return s.(*segment.SQL), c.(*sql.DB)
}

// newT is New for a test, failing it on error.
func newT(t testing.TB, s segment.Store, tag string, opts segment.Options) *segment.Allocator {
	t.Helper()
	a, err := segment.New(s, tag, opts)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// errDown is what a flaky store returns while it is down.
var errDown = errors.New("store down (test)")

// flaky wraps a real store: it records every reservation, adds latency, and fails on
// demand, either before reaching the store (down) or after the store reserved the block
// (lost: the reply went missing).
type flaky struct {
	segment.Store
	mu      sync.Mutex
	down    bool
	lost    bool
	latency time.Duration
	steps   []int64         // the step of every call
	ranges  []segment.Range // the blocks the store reserved, delivered or not
	slowest time.Duration
}

func (f *flaky) set(down, lost bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.down, f.lost = down, lost
}

func (f *flaky) calls() []int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]int64(nil), f.steps...)
}

func (f *flaky) Reserve(ctx context.Context, tag string, step int64) (segment.Range, error) {
	f.mu.Lock()
	f.steps = append(f.steps, step)
	down, lost, latency := f.down, f.lost, f.latency
	f.mu.Unlock()
	start := time.Now()
	defer func() {
		f.mu.Lock()
		f.slowest = max(f.slowest, time.Since(start))
		f.mu.Unlock()
	}()
	if latency > 0 {
		time.Sleep(latency)
	}
	if down {
		return segment.Range{}, errDown
	}
	r, err := f.Store.Reserve(ctx, tag, step)
	if err == nil {
		f.mu.Lock()
		f.ranges = append(f.ranges, r)
		f.mu.Unlock()
	}
	if lost {
		return segment.Range{}, errDown
	}
	return r, err
}

// fakeClock is a clock the test moves by hand.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{t: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// waitFor polls cond until it holds, failing the test after 10 s.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}
