package idem_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
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
	conformance(t, s)

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

// TestRedisClusterHashTags: a caller's key text never chooses the slot. 1,000 requests
// whose Idempotency-Keys all hold the hash tag {x} (through the middleware, so the store
// sees "4:acme:{x}-order-N") have their records spread over the slots and masters as
// plain keys do (before: all 1,000 in the slot of x, on one master). A store whose prefix
// is a hash tag of its own keeps every record in that tag's slot.
func TestRedisClusterHashTags(t *testing.T) {
	c, prefix := clusterClient(t)
	serve := func(s idem.Store, keys []string) {
		mw, err := idem.New(idem.Config{Store: s, Scope: tenantScope})
		if err != nil {
			t.Fatal(err)
		}
		h := mw.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusCreated) }))
		var wg sync.WaitGroup
		for part := range 8 {
			wg.Go(func() {
				for i := part; i < len(keys); i += 8 {
					req := httptest.NewRequest(http.MethodPost, "/orders", strings.NewReader("{}"))
					req.Header.Set("Idempotency-Key", keys[i])
					req.Header.Set("X-Tenant", "acme")
					rec := httptest.NewRecorder()
					h.ServeHTTP(rec, req)
					if rec.Code != http.StatusCreated {
						t.Errorf("key %q: %d %s", keys[i], rec.Code, rec.Body)
					}
				}
			})
		}
		wg.Wait()
	}
	keys := make([]string, 1000)
	for i := range keys {
		keys[i] = fmt.Sprintf("{x}-order-%d", i)
	}
	serve(clusterStore(t, c, prefix), keys)
	slots, masters := recordSlots(t, c, prefix)
	t.Logf("1,000 keys holding {x}: records in %d slots on %d masters", len(slots), len(masters))
	// 1,000 names hashed over 16,384 slots land in about 970 distinct ones.
	if len(slots) < 900 || len(masters) < 3 {
		t.Errorf("1,000 keys holding {x} are in %d slots on %d masters; want them spread (~970 slots, every master)", len(slots), len(masters))
	}

	tag := "{" + prefix + "}:" // testdb deletes keys starting with "{"+prefix too
	serve(clusterStore(t, c, tag), keys[:100])
	if slots, _ := recordSlots(t, c, tag); len(slots) != 1 {
		t.Errorf("a store whose prefix is the tag %q has its records in %d slots, want 1", tag, len(slots))
	}
}

// recordSlots returns the slots of the keys under prefix, and the masters holding them.
func recordSlots(t *testing.T, c *redis.ClusterClient, prefix string) (slots, masters map[string]int) {
	t.Helper()
	ctx := context.Background()
	var mu sync.Mutex
	slots, masters = map[string]int{}, map[string]int{}
	err := c.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
		iter := m.Scan(ctx, 0, prefix+"*", 1000).Iterator()
		for iter.Next(ctx) {
			slot, err := m.ClusterKeySlot(ctx, iter.Val()).Result()
			if err != nil {
				return err
			}
			mu.Lock()
			slots[fmt.Sprint(slot)]++
			masters[m.Options().Addr]++
			mu.Unlock()
		}
		return iter.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	return slots, masters
}
