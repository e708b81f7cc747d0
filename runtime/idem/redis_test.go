package idem

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idgen/idgen/internal/testdb"
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
		open := func(tb testing.TB) (Store, func()) {
			c := redis.NewClient(c.Options())
			tb.Cleanup(func() { c.Close() })
			return sharedRedis(tb, c, prefix), func() { c.Close() }
		}
		return []namedStore{{name: "redis", store: sharedRedis(tb, c, prefix), open: open}}
	})
}

// sharedRedis returns a store on the tests' shared Redis, which keeps nothing on disk:
// tests opt in explicitly (TestRedisPersistence shows the refusal).
func sharedRedis(tb testing.TB, c *redis.Client, prefix string) *Redis {
	tb.Helper()
	s, err := NewRedis(context.Background(), c, RedisOptions{Prefix: prefix, AllowNoPersistence: true})
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// TestRedisPersistence: against servers the test starts, NewRedis refuses one without
// persistence (and with RDB snapshots only) with a *NotPersistentError naming the opt-in,
// works with the opt-in, and works against an AOF server, whose completed keys survive a
// restart.
func TestRedisPersistence(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		args []string
		ok   bool
	}{
		{"none", nil, false},
		{"rdb only", []string{"--save", "3600 1"}, false},
		{"aof", []string{"--appendonly", "yes", "--appendfsync", "always"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := testdb.StartRedis(t, tc.args...)
			c := srv.Client()
			_, err := NewRedis(ctx, c, RedisOptions{})
			var npe *NotPersistentError
			if tc.ok != (err == nil) || !tc.ok && (!errors.As(err, &npe) || !errors.Is(err, ErrNotPersistent) || !strings.Contains(err.Error(), "AllowNoPersistence")) {
				t.Fatalf("NewRedis: %v", err)
			}
			s, err := NewRedis(ctx, c, RedisOptions{AllowNoPersistence: !tc.ok})
			if err != nil {
				t.Fatal(err)
			}
			tok, _, err := s.Claim(ctx, "k", "fp", time.Minute)
			if err == nil {
				err = s.Complete(ctx, "k", tok, Response{Status: 201, Body: []byte("done")}, time.Hour)
			}
			if err != nil {
				t.Fatal(err)
			}
			srv.Restart()
			rec, err := s.Get(ctx, "k")
			if tc.ok && (err != nil || rec.State != Completed || string(rec.Response.Body) != "done") {
				t.Errorf("after a restart with AOF: %+v %v", rec, err)
			}
			if !tc.ok && !errors.Is(err, ErrNotFound) {
				t.Errorf("after a restart without persistence the key is %+v %v; the test expected it gone", rec, err)
			}
		})
	}
}

func TestRedisStore(t *testing.T) {
	c, prefix := redisClient(t)
	s := sharedRedis(t, c, prefix)
	conformance(t, s, "")

	ctx := context.Background()
	t.Run("responses", func(t *testing.T) {
		for i, tc := range []Response{
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
		ttl, err := c.PTTL(ctx, s.prefix+"over").Result()
		if err != nil || ttl <= RedisGrace-time.Second || ttl > RedisGrace+time.Millisecond {
			t.Errorf("PTTL %v, %v; want about RedisGrace", ttl, err)
		}
		time.Sleep(5 * time.Millisecond)
		if _, err := s.Get(ctx, "over"); !errors.Is(err, ErrNotFound) {
			t.Errorf("Get of a timed-out claim: %v", err)
		}
		if n, err := s.Purge(ctx); err != nil || n != 1 {
			t.Errorf("Purge = %d, %v; want 1", n, err)
		}
		if n, err := c.Exists(ctx, s.prefix+"over").Result(); err != nil || n != 0 {
			t.Errorf("the purged record is still in Redis: %d %v", n, err)
		}
	})
	t.Run("foreign keys under the prefix", func(t *testing.T) {
		c.Set(ctx, s.prefix+"not-a-record", "x", time.Minute)
		if _, err := s.Purge(ctx); err != nil {
			t.Fatal(err)
		}
		if v, err := c.Get(ctx, s.prefix+"not-a-record").Result(); err != nil || v != "x" {
			t.Errorf("Purge touched a key that is not a record: %q %v", v, err)
		}
	})
	t.Run("two processes", func(t *testing.T) {
		// Two clients with their own pools and stores, one prefix.
		c2, _ := redisClient(t)
		stores := []*Redis{s, sharedRedis(t, c2, s.prefix)}
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
		if err := stores[1].Complete(ctx, "race", won[0], Response{Status: 200}, time.Minute); err != nil {
			t.Fatal(err)
		}
	})
}

func TestGlobEscape(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"idgen:idem:", "idgen:idem:"},
		{"{idem}:", "{idem}:"},
		{`a*b?c[d]e\f`, `a\*b\?c\[d\]e\\f`},
	} {
		if got := globEscape(tc.in); got != tc.want {
			t.Errorf("globEscape(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// ExampleNewRedis needs a Redis with persistence (appendonly yes), so it is compiled and
// not run.
func ExampleNewRedis() {
	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"})
	defer client.Close()
	ctx := context.Background()
	store, err := NewRedis(ctx, client, RedisOptions{Prefix: "orders:idem:"})
	if err != nil {
		fmt.Println(err) // a *NotPersistentError for a Redis that would forget
		return
	}
	token, held, err := store.Claim(ctx, "tenant-1:order-42", "fingerprint", time.Minute)
	switch {
	case err != nil:
		fmt.Println(err)
	case held != nil:
		fmt.Println("held:", held.State)
	default:
		err = store.Complete(ctx, "tenant-1:order-42", token, Response{Status: 201}, 24*time.Hour)
		fmt.Println("completed:", err)
	}
}
