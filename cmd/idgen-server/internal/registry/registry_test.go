package registry_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"
	_ "github.com/jackc/pgx/v5/stdlib"
	"github.com/redis/go-redis/v9"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	_ "modernc.org/sqlite"

	"github.com/idgen/idgen/cmd/idgen-server/internal/registry"
	"github.com/idgen/idgen/runtime/sqldb"
)

// clock is the SQL Store's clock in tests: the wall clock plus an offset the test moves,
// so that a record expires without waiting for it.
type clock struct{ ahead atomic.Int64 }

func (c *clock) now() time.Time          { return time.Now().Add(time.Duration(c.ahead.Load())) }
func (c *clock) advance(d time.Duration) { c.ahead.Add(int64(d)) }

// backend is a Store under test: new returns a Store on the backend's shared server, in a
// table or under a prefix of this test's own; expire, when set, makes time pass for the
// Store (the SQL clock) instead of waiting for the server to expire the record.
type backend struct {
	name   string
	new    func(t *testing.T, c *clock) registry.Store
	expire func(c *clock, d time.Duration)
}

func suffix() string { return strings.ToLower(rand.Text()[:8]) }

// sqlDB opens driver's dsn from env (skipping the test naming env when unset), or a
// SQLite file of the test's own when env is empty.
func sqlDB(t *testing.T, driver, env string) *sql.DB {
	t.Helper()
	dsn := t.TempDir() + "/reg.db?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)"
	if env != "" {
		if dsn = os.Getenv(env); dsn == "" {
			t.Skip(env + " is not set")
		}
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// sqlTable returns a table name of the test's own, dropped when it ends.
func sqlTable(t *testing.T, db *sql.DB) string {
	table := "idgen_servers_t" + suffix()
	t.Cleanup(func() { db.Exec("DROP TABLE IF EXISTS " + table) })
	return table
}

func sqlBackend(name, driver, env string, d sqldb.Dialect) backend {
	return backend{
		name: name,
		new: func(t *testing.T, c *clock) registry.Store {
			db := sqlDB(t, driver, env)
			s, err := registry.NewSQL(context.Background(), db, d, registry.SQLOptions{Table: sqlTable(t, db), Now: c.now})
			if err != nil {
				t.Fatal(err)
			}
			return s
		},
		expire: func(c *clock, d time.Duration) { c.advance(d) },
	}
}

func backends() []backend {
	return []backend{
		sqlBackend("sqlite", "sqlite", "", sqldb.SQLite),
		sqlBackend("postgres", "pgx", "IDGEN_TEST_POSTGRES_DSN", sqldb.Postgres),
		sqlBackend("mysql", "mysql", "IDGEN_TEST_MYSQL_DSN", sqldb.MySQL),
		{name: "redis", new: func(t *testing.T, _ *clock) registry.Store {
			rdb, prefix := redisClient(t)
			return registry.NewRedis(rdb, prefix)
		}},
		{name: "etcd", new: func(t *testing.T, _ *clock) registry.Store {
			c, prefix := etcdPrefix(t)
			return registry.NewEtcd(c, prefix)
		}},
	}
}

func list(t *testing.T, s registry.Store) map[string]registry.Instance {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ins, err := s.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]registry.Instance{}
	for _, in := range ins {
		if _, dup := out[in.ID]; dup {
			t.Fatalf("instance %s listed twice: %v", in.ID, ins)
		}
		out[in.ID] = in
	}
	return out
}

// waitList polls s until ok accepts its list, failing the test after d.
func waitList(t *testing.T, s registry.Store, what string, d time.Duration, ok func(map[string]registry.Instance) bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		got := list(t, s)
		if ok(got) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v; listed %v", what, d, got)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func put(t *testing.T, s registry.Store, in registry.Instance, ttl time.Duration) {
	t.Helper()
	if err := s.Put(context.Background(), in, ttl); err != nil {
		t.Fatal(err)
	}
}

// TestStore: on every backend a record put is listed with what was written, a second
// Put replaces it, a record no one renews disappears once its TTL has passed, Delete
// removes one at once, and what no Store can keep is refused.
func TestStore(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			c := &clock{}
			s := b.new(t, c)
			started := time.UnixMilli(time.Now().Add(-time.Hour).UnixMilli())
			live := registry.Instance{ID: registry.NewID(), URL: "http://10.0.0.1:7070", Worker: 3, Started: started}
			stopped := registry.Instance{ID: registry.NewID(), URL: "https://idgen-2.example:7443", Worker: -1, Started: started}
			put(t, s, live, time.Minute)
			put(t, s, stopped, time.Second)
			got := list(t, s)
			if len(got) != 2 {
				t.Fatalf("listed %v, want %s and %s", got, live.ID, stopped.ID)
			}
			for _, want := range []registry.Instance{live, stopped} {
				g := got[want.ID]
				if g.URL != want.URL || g.Worker != want.Worker || !g.Started.Equal(want.Started) || !g.Expires.After(time.Now().Add(-time.Second)) {
					t.Errorf("listed %+v, put %+v", g, want)
				}
			}

			live.Worker = 9
			put(t, s, live, time.Minute)
			if g := list(t, s)[live.ID]; g.Worker != 9 {
				t.Errorf("after a second Put: worker %d, want 9", g.Worker)
			}

			// The stopped instance is renewed no more: gone once its TTL has passed,
			// while the live one (renewed) stays.
			if b.expire != nil {
				b.expire(c, 2*time.Second)
				put(t, s, live, time.Minute)
			}
			waitList(t, s, "the stopped record expiring", 20*time.Second, func(m map[string]registry.Instance) bool {
				_, gone := m[stopped.ID]
				_, kept := m[live.ID]
				return !gone && kept && len(m) == 1
			})

			if err := s.Delete(context.Background(), live.ID); err != nil {
				t.Fatal(err)
			}
			if got := list(t, s); len(got) != 0 {
				t.Errorf("after Delete: listed %v", got)
			}
			if err := s.Delete(context.Background(), live.ID); err != nil {
				t.Errorf("deleting a missing record: %v", err)
			}

			for _, bad := range []registry.Instance{{URL: "http://x"}, {ID: "a b", URL: "http://x"}, {ID: "ok"}, {ID: strings.Repeat("a", 65), URL: "http://x"}} {
				if err := s.Put(context.Background(), bad, time.Minute); !errors.Is(err, registry.ErrInvalid) {
					t.Errorf("Put(%+v): %v, want ErrInvalid", bad, err)
				}
			}
		})
	}
}

// TestRegister: on every backend two Registrations see each other, stay listed while
// they beat for longer than their TTL, report a changed worker ID at the next beat, and
// leave the list at once on Close.
func TestRegister(t *testing.T) {
	const heartbeat, ttl = 100 * time.Millisecond, 1500 * time.Millisecond
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			s := b.new(t, &clock{})
			var worker atomic.Int64
			worker.Store(4)
			type beats struct {
				mu  sync.Mutex
				n   int
				err error
			}
			var ba, bb beats
			onBeat := func(b *beats) func(error) {
				return func(err error) {
					b.mu.Lock()
					defer b.mu.Unlock()
					b.n++
					if err != nil && b.err == nil {
						b.err = err
					}
				}
			}
			ctx := context.Background()
			a, err := registry.Register(ctx, s, registry.Instance{ID: registry.NewID(), URL: "http://127.0.0.1:1001", Worker: 1, Started: time.Now()},
				registry.Options{Heartbeat: heartbeat, TTL: ttl, OnBeat: onBeat(&ba)})
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close(ctx)
			c, err := registry.Register(ctx, s, registry.Instance{ID: registry.NewID(), URL: "http://127.0.0.1:1002", Started: time.Now()},
				registry.Options{Heartbeat: heartbeat, TTL: ttl, Worker: worker.Load, OnBeat: onBeat(&bb)})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close(ctx)

			got := list(t, s)
			if len(got) != 2 || got[a.ID()].URL != "http://127.0.0.1:1001" || got[c.ID()].Worker != 4 {
				t.Fatalf("listed %v, want both registrations", got)
			}

			// Beats for longer than the TTL: still listed, so the beats renew.
			enough := int(ttl/heartbeat) + 3
			deadline := time.Now().Add(30 * time.Second)
			for {
				ba.mu.Lock()
				n, err := ba.n, ba.err
				ba.mu.Unlock()
				if err != nil {
					t.Fatalf("heartbeat: %v", err)
				}
				if n >= enough {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("%d heartbeats in 30s, want %d", n, enough)
				}
				time.Sleep(heartbeat)
			}
			worker.Store(7)
			waitList(t, s, "both listed, the new worker ID reported", 10*time.Second, func(m map[string]registry.Instance) bool {
				return len(m) == 2 && m[c.ID()].Worker == 7
			})
			bb.mu.Lock()
			if bb.err != nil {
				t.Errorf("heartbeat: %v", bb.err)
			}
			bb.mu.Unlock()

			if err := a.Close(ctx); err != nil {
				t.Fatal(err)
			}
			if got := list(t, s); len(got) != 1 || got[c.ID()].ID == "" {
				t.Fatalf("after Close: listed %v, want only %s", got, c.ID())
			}
		})
	}
}

// TestCreateConcurrently: many processes (a *sql.DB each) creating the table at once on
// a new database all succeed, on every SQL backend.
func TestCreateConcurrently(t *testing.T) {
	for _, b := range []struct {
		name, driver, env string
		d                 sqldb.Dialect
	}{
		{"sqlite", "sqlite", "", sqldb.SQLite},
		{"postgres", "pgx", "IDGEN_TEST_POSTGRES_DSN", sqldb.Postgres},
		{"mysql", "mysql", "IDGEN_TEST_MYSQL_DSN", sqldb.MySQL},
	} {
		t.Run(b.name, func(t *testing.T) {
			const n = 8
			first := sqlDB(t, b.driver, b.env)
			table := sqlTable(t, first)
			dbs := []*sql.DB{first}
			for range n - 1 {
				dbs = append(dbs, sqlDBLike(t, b.driver, b.env, first))
			}
			errs := make([]error, n)
			start := make(chan struct{})
			var wg sync.WaitGroup
			for i, db := range dbs {
				wg.Go(func() {
					<-start
					s, err := registry.NewSQL(context.Background(), db, b.d, registry.SQLOptions{Table: table})
					if err == nil {
						err = s.Put(context.Background(), registry.Instance{ID: fmt.Sprint("i", i), URL: "http://h", Started: time.Now()}, time.Minute)
					}
					errs[i] = err
				})
			}
			close(start)
			wg.Wait()
			for i, err := range errs {
				if err != nil {
					t.Errorf("process %d: %v", i, err)
				}
			}
			s, err := registry.NewSQL(context.Background(), first, b.d, registry.SQLOptions{Table: table})
			if err != nil {
				t.Fatal(err)
			}
			if got := list(t, s); len(got) != n {
				t.Errorf("listed %d records, want %d", len(got), n)
			}
		})
	}
}

// sqlDBLike opens another *sql.DB on the database of like: the same DSN, or for SQLite
// the same file.
func sqlDBLike(t *testing.T, driver, env string, like *sql.DB) *sql.DB {
	t.Helper()
	if env != "" {
		return sqlDB(t, driver, env)
	}
	var file string
	if err := like.QueryRow("SELECT file FROM pragma_database_list WHERE name = 'main'").Scan(&file); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open(driver, file+"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestBadTable: a table name sqldb.CheckTable refuses is refused before the database is
// used.
func TestBadTable(t *testing.T) {
	if _, err := registry.NewSQL(context.Background(), nil, sqldb.SQLite, registry.SQLOptions{Table: "x;y"}); !errors.Is(err, registry.ErrInvalid) || !errors.Is(err, sqldb.ErrInvalidTable) {
		t.Errorf("NewSQL with a bad table: %v", err)
	}
}

// TestRegisterOptions: a TTL not longer than the heartbeat is refused before anything is
// written.
func TestRegisterOptions(t *testing.T) {
	_, err := registry.Register(context.Background(), nil, registry.Instance{}, registry.Options{Heartbeat: time.Second, TTL: time.Second})
	if !errors.Is(err, registry.ErrInvalid) {
		t.Fatalf("Register: %v, want ErrInvalid", err)
	}
}

// delRedis deletes the keys under prefix.
func delRedis(rdb *redis.Client, prefix string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	it := rdb.Scan(ctx, 0, prefix+"*", 100).Iterator()
	for it.Next(ctx) {
		rdb.Del(ctx, it.Val())
	}
}

// redisClient returns a client of IDGEN_TEST_REDIS_DSN and a prefix of the test's own,
// whose keys are deleted when the test ends.
func redisClient(t *testing.T) (*redis.Client, string) {
	t.Helper()
	dsn := os.Getenv("IDGEN_TEST_REDIS_DSN")
	if dsn == "" {
		t.Skip("IDGEN_TEST_REDIS_DSN is not set")
	}
	opt, err := redis.ParseURL(dsn)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	prefix := "idgen-reg-test-" + suffix() + ":"
	t.Cleanup(func() { delRedis(rdb, prefix); rdb.Close() })
	return rdb, prefix
}

// TestRedisIndex: the records are listed through the sorted set prefix+"servers"
// (member the ID, score the expiry), not by scanning the keyspace: Put adds to it, Delete
// removes from it, a record key the index does not name is not read, and a record whose
// key expired is left out although the index still names it.
func TestRedisIndex(t *testing.T) {
	rdb, prefix := redisClient(t)
	ctx := context.Background()
	s := registry.NewRedis(rdb, prefix)
	in := registry.Instance{ID: "a1", URL: "http://10.0.0.1:7070", Started: time.Now()}
	put(t, s, in, time.Minute)
	score, err := rdb.ZScore(ctx, prefix+"servers", "a1").Result()
	if err != nil || score < float64(time.Now().Add(50*time.Second).UnixMilli()) {
		t.Fatalf("index score of a1: %v, %v; want its expiry in ms", score, err)
	}
	if err := rdb.Set(ctx, prefix+"server:stray", `{"url":"http://10.0.0.9:1"}`, time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	if got := list(t, s); len(got) != 1 || got["a1"].URL != in.URL {
		t.Fatalf("listed %v, want a1 only (stray is not in the index)", got)
	}
	short := registry.Instance{ID: "b2", URL: "http://10.0.0.2:7070", Started: time.Now()}
	put(t, s, short, 50*time.Millisecond)
	waitList(t, s, "b2's key expiring", 10*time.Second, func(m map[string]registry.Instance) bool { return len(m) == 1 })
	if err := s.Delete(ctx, "a1"); err != nil {
		t.Fatal(err)
	}
	if _, err := rdb.ZScore(ctx, prefix+"servers", "a1").Result(); !errors.Is(err, redis.Nil) {
		t.Errorf("a1 still in the index after Delete: %v", err)
	}
}

// TestUndecodable: on Redis and etcd a record that does not decode is skipped with an
// error matching ErrUndecodable, and the others are listed.
func TestUndecodable(t *testing.T) {
	ctx := context.Background()
	good := registry.Instance{ID: "good", URL: "http://10.0.0.1:7070", Started: time.Now()}
	check := func(t *testing.T, s registry.Store) {
		got, err := s.List(ctx)
		if !errors.Is(err, registry.ErrUndecodable) || len(got) != 1 || got[0].ID != "good" {
			t.Fatalf("List = %v, %v; want the good record and ErrUndecodable", got, err)
		}
	}
	t.Run("redis", func(t *testing.T) {
		rdb, prefix := redisClient(t)
		s := registry.NewRedis(rdb, prefix)
		put(t, s, good, time.Minute)
		put(t, s, registry.Instance{ID: "bad", URL: "http://x", Started: time.Now()}, time.Minute)
		if err := rdb.Set(ctx, prefix+"server:bad", "not json", time.Minute).Err(); err != nil {
			t.Fatal(err)
		}
		check(t, s)
	})
	t.Run("etcd", func(t *testing.T) {
		c, prefix := etcdPrefix(t)
		s := registry.NewEtcd(c, prefix)
		put(t, s, good, time.Minute)
		if _, err := c.Put(ctx, prefix+"server/bad", "not json"); err != nil {
			t.Fatal(err)
		}
		check(t, s)
	})
}

// failing is a Store whose first n Puts fail (a store down at start), then the real one.
type failing struct {
	registry.Store
	n atomic.Int32
}

var errDown = errors.New("store down")

func (f *failing) Put(ctx context.Context, in registry.Instance, ttl time.Duration) error {
	if f.n.Add(-1) >= 0 {
		return errDown
	}
	return f.Store.Put(ctx, in, ttl)
}

// TestRegisterRetries: a first write that fails returns its error with a Registration
// that keeps trying at every heartbeat, so the instance is listed once the store is back.
func TestRegisterRetries(t *testing.T) {
	s := backends()[0].new(t, &clock{})
	f := &failing{Store: s}
	f.n.Store(3)
	ctx := context.Background()
	r, err := registry.Register(ctx, f, registry.Instance{ID: "late", URL: "http://127.0.0.1:1003", Started: time.Now()},
		registry.Options{Heartbeat: 20 * time.Millisecond, TTL: time.Second})
	if !errors.Is(err, errDown) || r == nil {
		t.Fatalf("Register on a store down: %v, %v; want the error and a Registration", r, err)
	}
	defer r.Close(ctx)
	waitList(t, s, "the record written by a retry", 10*time.Second, func(m map[string]registry.Instance) bool { return m["late"].URL != "" })
}

// etcdPrefix returns a client of IDGEN_TEST_ETCD_ENDPOINTS' etcd and a key prefix of the
// test's own, deleted when the test ends; the test is skipped without the variable.
func etcdPrefix(t *testing.T) (*clientv3.Client, string) {
	t.Helper()
	v := os.Getenv("IDGEN_TEST_ETCD_ENDPOINTS")
	if v == "" {
		t.Skip("IDGEN_TEST_ETCD_ENDPOINTS is not set")
	}
	c, err := clientv3.New(clientv3.Config{Endpoints: strings.Split(v, ","), DialTimeout: 2 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	prefix := "idgen-reg-test/" + suffix() + "/"
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		c.Delete(ctx, prefix, clientv3.WithPrefix())
		c.Close()
	})
	return c, prefix
}
