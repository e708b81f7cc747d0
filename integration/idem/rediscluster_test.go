package idem_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idgen/idgen/integration/internal/testdb"
	"github.com/idgen/idgen/plugins/redis/redisidem"
	"github.com/idgen/idgen/runtime/idem"
)

// clusterClient returns a client on the Redis Cluster in IDGEN_TEST_REDIS_CLUSTER_ADDRS,
// closed when the test ends, and a key prefix of the test's own (testdb.RedisCluster: no
// hash tag, so records spread over every master).
func clusterClient(tb testing.TB) (*redis.ClusterClient, string) {
	tb.Helper()
	addrs, prefix := testdb.RedisCluster(tb, "idem")
	c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs})
	tb.Cleanup(func() { c.Close() })
	return c, prefix
}

func init() {
	extraStores = append(extraStores, func(tb testing.TB) []namedStore {
		if os.Getenv(testdb.RedisClusterEnv) == "" {
			return nil
		}
		c, prefix := clusterClient(tb)
		s := clusterStore(tb, c, prefix)
		open := func(tb testing.TB) (idem.Store, func()) {
			c := redis.NewClusterClient(c.Options())
			tb.Cleanup(func() { c.Close() })
			return clusterStore(tb, c, prefix), func() { c.Close() }
		}
		return []namedStore{{name: "rediscluster", store: s, open: open}}
	})
}

// clusterStore is a store on the cluster, which persists: NewRedis checks every master.
func clusterStore(tb testing.TB, c *redis.ClusterClient, prefix string) *redisidem.Store {
	tb.Helper()
	s, err := redisidem.New(context.Background(), c, redisidem.Options{Prefix: prefix})
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// TestRedisClusterStore: the Store contract on a Redis Cluster, whose records (one key
// each, one slot each) spread over every master, and a Purge that finds the timed-out
// records of every master.
func TestRedisClusterStore(t *testing.T) {
	c, prefix := clusterClient(t)
	s := clusterStore(t, c, prefix)
	conformance(t, s, "")

	t.Run("purge on every master", func(t *testing.T) {
		ctx := context.Background()
		const n = 60
		for i := range n {
			if tok, _, err := s.Claim(ctx, fmt.Sprint("over-", i), "fp", time.Millisecond); err != nil || tok == "" {
				t.Fatal(tok, err)
			}
		}
		// Which master holds each record: a purge that scanned one would leave the others'.
		per := map[string]int{}
		for i := range n {
			m, err := c.MasterForKey(ctx, prefix+fmt.Sprint("over-", i))
			if err != nil {
				t.Fatal(err)
			}
			per[m.Options().Addr]++
		}
		if len(per) < 2 {
			t.Fatalf("records on %d masters (%v): the test needs them spread", len(per), per)
		}
		time.Sleep(5 * time.Millisecond)
		got, err := s.Purge(ctx)
		if err != nil || got < n {
			t.Fatalf("Purge = %d, %v; want at least %d (records per master: %v)", got, err, n, per)
		}
		for i := range n {
			if k, err := c.Exists(ctx, prefix+fmt.Sprint("over-", i)).Result(); err != nil || k != 0 {
				t.Errorf("record over-%d still in the cluster after Purge: %d %v", i, k, err)
			}
		}
		t.Logf("Purge deleted %d timed-out records spread over %d masters (%v)", got, len(per), per)
	})
}
