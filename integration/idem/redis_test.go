package idem_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idgen/idgen/integration/internal/testdb"
	"github.com/idgen/idgen/plugins/redis/redisidem"
	"github.com/idgen/idgen/runtime/idem"
)

// redisClient returns a client on the Redis in IDGEN_TEST_REDIS_DSN, closed when the test
// ends, and a key prefix of the test's own (testdb.Redis: skips without the variable, fails
// when Redis does not answer, deletes the prefix's keys at the end).
func redisClient(tb testing.TB) (*redis.Client, string) {
	tb.Helper()
	dsn, prefix := testdb.Redis(tb, "idem")
	opt, err := redis.ParseURL(dsn)
	if err != nil {
		tb.Fatalf("%s: %v", testdb.RedisEnv, err)
	}
	c := redis.NewClient(opt)
	tb.Cleanup(func() { c.Close() })
	return c, prefix
}

func init() {
	extraStores = append(extraStores, func(tb testing.TB) []namedStore {
		if os.Getenv(testdb.RedisEnv) == "" {
			return nil
		}
		c, prefix := redisClient(tb)
		open := func(tb testing.TB) (idem.Store, func()) {
			c := redis.NewClient(c.Options())
			tb.Cleanup(func() { c.Close() })
			return sharedRedis(tb, c, prefix), func() { c.Close() }
		}
		return []namedStore{{name: "redis", store: sharedRedis(tb, c, prefix), open: open}}
	})
}

// sharedRedis returns a store on the tests' shared Redis, which keeps nothing on disk:
// tests opt in explicitly (TestRedisPersistence shows the refusal).
func sharedRedis(tb testing.TB, c *redis.Client, prefix string) *redisidem.Store {
	tb.Helper()
	s, err := redisidem.New(context.Background(), c, redisidem.Options{Prefix: prefix, AllowNoPersistence: true})
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

func TestRedisStore(t *testing.T) {
	c, prefix := redisClient(t)
	s := sharedRedis(t, c, prefix)
	conformance(t, s)

	ctx := context.Background()
	t.Run("responses", func(t *testing.T) {
		for i, tc := range []idem.Response{
			{Status: 200},
			{Status: 201, Header: http.Header{}},
			{Status: 202, Header: http.Header{"Set": {"a", "b"}}, Body: []byte("\x00\xff binary")},
		} {
			key := fmt.Sprint("resp-", i)
			tok, _, err := s.Claim(ctx, key, "fp", time.Minute)
			if err == nil {
				err = s.Complete(ctx, key, tok, tc, time.Hour)
			}
			if err != nil {
				t.Fatal(err)
			}
			_, held, err := s.Claim(ctx, key, "fp", time.Minute)
			if err != nil || held == nil || held.Response == nil {
				t.Fatalf("%+v %v", held, err)
			}
			r := held.Response
			if r.Status != tc.Status || string(r.Body) != string(tc.Body) || fmt.Sprint(r.Header) != fmt.Sprint(tc.Header) || (r.Header == nil) != (tc.Header == nil) {
				t.Errorf("stored %+v, got %+v", tc, r)
			}
		}
	})
	t.Run("over before purged", func(t *testing.T) {
		// Get and Claim see a record whose time is over as absent at once; Redis keeps
		// it RedisGrace longer, for Purge to count.
		if tok, _, err := s.Claim(ctx, "over", "fp", time.Millisecond); err != nil || tok == "" {
			t.Fatal(tok, err)
		}
		ttl, err := c.PTTL(ctx, s.Prefix()+"over").Result()
		if err != nil || ttl <= redisidem.RedisGrace-time.Second || ttl > redisidem.RedisGrace+time.Millisecond {
			t.Errorf("PTTL %v, %v; want about RedisGrace", ttl, err)
		}
		time.Sleep(5 * time.Millisecond)
		if _, err := s.Get(ctx, "over"); !errors.Is(err, idem.ErrNotFound) {
			t.Errorf("Get of a timed-out claim: %v", err)
		}
		if n, err := s.Purge(ctx); err != nil || n != 1 {
			t.Errorf("Purge = %d, %v; want 1", n, err)
		}
		if n, err := c.Exists(ctx, s.Prefix()+"over").Result(); err != nil || n != 0 {
			t.Errorf("the purged record is still in Redis: %d %v", n, err)
		}
	})
	t.Run("foreign keys under the prefix", func(t *testing.T) {
		c.Set(ctx, s.Prefix()+"not-a-record", "x", time.Minute)
		if _, err := s.Purge(ctx); err != nil {
			t.Fatal(err)
		}
		if v, err := c.Get(ctx, s.Prefix()+"not-a-record").Result(); err != nil || v != "x" {
			t.Errorf("Purge touched a key that is not a record: %q %v", v, err)
		}
	})
	t.Run("two processes", func(t *testing.T) {
		// Two clients with their own pools and stores, one prefix.
		c2, _ := redisClient(t)
		stores := []*redisidem.Store{s, sharedRedis(t, c2, s.Prefix())}
		const callers = 50
		tokens := make([]string, callers)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range callers {
			wg.Go(func() {
				<-start
				tok, _, err := stores[i%2].Claim(ctx, "race", fmt.Sprint("fp", i), time.Minute)
				if err != nil {
					t.Error(err)
				}
				tokens[i] = tok
			})
		}
		close(start)
		wg.Wait()
		var won []string
		for _, tok := range tokens {
			if tok != "" {
				won = append(won, tok)
			}
		}
		if len(won) != 1 {
			t.Fatalf("%d callers claimed the key, want 1", len(won))
		}
		if err := stores[1].Complete(ctx, "race", won[0], idem.Response{Status: 200}, time.Minute); err != nil {
			t.Fatal(err)
		}
	})
}
