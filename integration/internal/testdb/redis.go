package testdb

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// RedisEnv names the Redis server for server-backed tests, as a URL:
// redis://127.0.0.1:6379/0.
const RedisEnv = "IDGEN_TEST_REDIS_DSN"

// Redis returns the URL in IDGEN_TEST_REDIS_DSN and a key prefix of the test's own,
// "idgen_test:<name>:<pid>:<random>:", whose keys are deleted when the test ends. It skips
// the test naming the variable when unset, and fails it when the server does not answer.
// The server there may keep nothing on disk (the development machines' does not), so
// stores that check persistence refuse it: tests on it pass AllowNoPersistence, since
// nothing they store outlives them. Tests that need persistence, or to restart or flush
// the server, start their own (StartRedis).
func Redis(t testing.TB, name string) (dsn, prefix string) {
	t.Helper()
	if err := validName(name); err != nil {
		t.Fatal(err)
	}
	dsn = os.Getenv(RedisEnv)
	if dsn == "" {
		t.Skip("set " + RedisEnv + " to run against Redis")
	}
	opts, err := redis.ParseURL(dsn)
	if err != nil {
		t.Fatalf("%s: %v", RedisEnv, err)
	}
	c := redis.NewClient(opts)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		c.Close()
		t.Fatalf("%s is set but the server does not answer: %v", RedisEnv, err)
	}
	t.Log(UsedMarker + "Redis")
	prefix = fmt.Sprintf("idgen_test:%s:%d:%s:", name, os.Getpid(), strings.ToLower(rand.Text()[:8]))
	t.Cleanup(func() {
		defer c.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		iter := c.Scan(ctx, 0, prefix+"*", 1000).Iterator()
		for iter.Next(ctx) {
			c.Del(ctx, iter.Val())
		}
		if err := iter.Err(); err != nil {
			t.Errorf("deleting keys %s*: %v", prefix, err)
		}
	})
	return dsn, prefix
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
