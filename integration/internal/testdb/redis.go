package testdb

import (
	"testing"

	"github.com/idgen/idgen/plugins/redis/redistest"
)

// The Redis helpers are the published module's (plugins/redis/redistest), so that the
// Redis backends' own tests and these share one copy; these names are kept for the tests
// that use them.

// RedisEnv names the Redis server for server-backed tests (redistest.Env).
const RedisEnv = redistest.Env

// RedisClusterEnv names the Redis Cluster for server-backed tests (redistest.ClusterEnv).
const RedisClusterEnv = redistest.ClusterEnv

// RedisServer is a redis-server of the test's own (redistest.Server).
type RedisServer = redistest.Server

// Redis returns the URL in IDGEN_TEST_REDIS_DSN and a key prefix of the test's own
// (redistest.Shared).
func Redis(t testing.TB, name string) (dsn, prefix string) {
	t.Helper()
	return redistest.Shared(t, name)
}

// RedisCluster returns the addresses in IDGEN_TEST_REDIS_CLUSTER_ADDRS and a key prefix of
// the test's own (redistest.SharedCluster).
func RedisCluster(t testing.TB, name string) (addrs []string, prefix string) {
	t.Helper()
	return redistest.SharedCluster(t, name)
}

// StartRedis starts a redis-server of the test's own (redistest.Start).
func StartRedis(t testing.TB, args ...string) *RedisServer {
	t.Helper()
	return redistest.Start(t, args...)
}

// StartRedisCluster starts a Redis Cluster of n servers of the test's own
// (redistest.StartCluster).
func StartRedisCluster(t testing.TB, n int, args ...string) []*RedisServer {
	t.Helper()
	return redistest.StartCluster(t, n, args...)
}
