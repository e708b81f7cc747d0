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

// RedisClusterEnv names the Redis Cluster for server-backed tests: the comma-separated
// host:port of its masters (or any of its nodes), 127.0.0.1:7101,127.0.0.1:7102,... .
// .ci/run starts one of three masters with the AOF on.
const RedisClusterEnv = "IDGEN_TEST_REDIS_CLUSTER_ADDRS"

// RedisCluster returns the addresses in IDGEN_TEST_REDIS_CLUSTER_ADDRS and a key prefix
// of the test's own, "idgen_test:<name>:<pid>:<random>:" (no hash tag: stores that need
// their keys in one slot add one), whose keys are deleted from every master when the test
// ends. It skips the test naming the variable when unset, and fails it when the cluster
// does not answer. The cluster persists (the AOF is on), so stores on it are made without
// AllowNoPersistence.
func RedisCluster(t testing.TB, name string) (addrs []string, prefix string) {
	t.Helper()
	if err := validName(name); err != nil {
		t.Fatal(err)
	}
	v := os.Getenv(RedisClusterEnv)
	if v == "" {
		t.Skip("set " + RedisClusterEnv + " to run against a Redis Cluster")
	}
	addrs = strings.Split(v, ",")
	c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error { return m.Ping(ctx).Err() }); err != nil {
		c.Close()
		t.Fatalf("%s is set but the cluster does not answer: %v", RedisClusterEnv, err)
	}
	prefix = fmt.Sprintf("idgen_test:%s:%d:%s:", name, os.Getpid(), strings.ToLower(rand.Text()[:8]))
	t.Cleanup(func() {
		defer c.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		// A tagged prefix ("{idgen_test:...}") puts its keys on one master, an untagged one
		// spreads them: scan every master for both.
		err := c.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
			for _, pat := range []string{prefix + "*", "{" + prefix + "*"} {
				iter := m.Scan(ctx, 0, pat, 1000).Iterator()
				for iter.Next(ctx) {
					m.Del(ctx, iter.Val())
				}
				if err := iter.Err(); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Errorf("deleting keys %s* on the cluster: %v", prefix, err)
		}
	})
	return addrs, prefix
}
