package redistest

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Env names the shared Redis server, as a URL: redis://127.0.0.1:6379/0.
const Env = "IDGEN_TEST_REDIS_DSN"

// ClusterEnv names the shared Redis Cluster: the comma-separated host:port of its masters
// (or any of its nodes), 127.0.0.1:7101,127.0.0.1:7102,... .
const ClusterEnv = "IDGEN_TEST_REDIS_CLUSTER_ADDRS"

// UsedMarker starts the line a test logs when Shared gives it the shared server, so that
// a run's summary (over go test -json) can count the tests that used it; the server's
// name, "Redis", follows it.
const UsedMarker = "redistest: server used: "

// timeout bounds every administrative step (a ping, the cleanup, starting a server), so a
// hung server fails the test instead of hanging it.
const timeout = 30 * time.Second

// Shared returns the URL in IDGEN_TEST_REDIS_DSN and a key prefix of the test's own,
// "idgen_test:<name>:<pid>:<random>:", whose keys are deleted when the test ends. name
// says whose keys they are (the package under test, say): lowercase letters, digits and
// underscores. Shared skips the test naming the variable when it is unset, and fails it
// when the server does not answer.
//
// The shared server may keep nothing on disk (the development machines' does not), so
// stores that check persistence refuse it: tests on it opt out of the check, since
// nothing they store outlives them. Tests that need persistence, or to restart or flush
// the server, start their own (Start).
func Shared(t testing.TB, name string) (url, prefix string) {
	t.Helper()
	if err := validName(name); err != nil {
		t.Fatal(err)
	}
	url = os.Getenv(Env)
	if url == "" {
		t.Skip("set " + Env + " to run against Redis")
		return "", "" // reached only when t is not a *testing.T
	}
	opts, err := redis.ParseURL(url)
	if err != nil {
		t.Fatalf("redistest: %s: %v", Env, err)
	}
	c := redis.NewClient(opts)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		c.Close()
		t.Fatalf("redistest: %s is set but the server does not answer: %v", Env, err)
	}
	t.Log(UsedMarker + "Redis")
	prefix = newPrefix(name)
	t.Cleanup(func() {
		defer c.Close()
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		if err := deleteKeys(ctx, c, prefix+"*"); err != nil {
			t.Errorf("redistest: deleting keys %s*: %v", prefix, err)
		}
	})
	return url, prefix
}

// SharedCluster returns the addresses in IDGEN_TEST_REDIS_CLUSTER_ADDRS and a key prefix
// of the test's own, "idgen_test:<name>:<pid>:<random>:" (no hash tag: stores that need
// their keys in one slot add one), whose keys are deleted from every master when the test
// ends, under the prefix and under the prefix with a hash tag opened before it ("{" +
// prefix). It skips the test naming the variable when unset, and fails it when the
// cluster does not answer. idgen's CI runs its cluster with the AOF on, and its tests
// make their stores on it with the persistence check on.
func SharedCluster(t testing.TB, name string) (addrs []string, prefix string) {
	t.Helper()
	if err := validName(name); err != nil {
		t.Fatal(err)
	}
	v := os.Getenv(ClusterEnv)
	if v == "" {
		t.Skip("set " + ClusterEnv + " to run against a Redis Cluster")
		return nil, "" // reached only when t is not a *testing.T
	}
	addrs = strings.Split(v, ",")
	c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs})
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := c.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error { return m.Ping(ctx).Err() }); err != nil {
		c.Close()
		t.Fatalf("redistest: %s is set but the cluster does not answer: %v", ClusterEnv, err)
	}
	prefix = newPrefix(name)
	t.Cleanup(func() {
		defer c.Close()
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		// A tagged prefix ("{idgen_test:...}") puts its keys on one master, an untagged one
		// spreads them: scan every master for both.
		err := c.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
			return errors.Join(deleteKeys(ctx, m, prefix+"*"), deleteKeys(ctx, m, "{"+prefix+"*"))
		})
		if err != nil {
			t.Errorf("redistest: deleting keys %s* on the cluster: %v", prefix, err)
		}
	})
	return addrs, prefix
}

// newPrefix returns "idgen_test:<name>:<pid>:<random>:".
func newPrefix(name string) string {
	return fmt.Sprintf("idgen_test:%s:%d:%s:", name, os.Getpid(), strings.ToLower(rand.Text()[:8]))
}

// deleteKeys deletes the keys of one server that match pattern.
func deleteKeys(ctx context.Context, c *redis.Client, pattern string) error {
	iter := c.Scan(ctx, 0, pattern, 1000).Iterator()
	for iter.Next(ctx) {
		if err := c.Del(ctx, iter.Val()).Err(); err != nil {
			return err
		}
	}
	return iter.Err()
}

// validName accepts lowercase letters, digits and underscores, at most 63 bytes: a name
// that needs no quoting in a key pattern and cannot open a hash tag.
func validName(name string) error {
	if name == "" || len(name) > 63 {
		return fmt.Errorf("redistest: name %q: want 1 to 63 bytes", name)
	}
	for _, r := range name {
		if !('a' <= r && r <= 'z' || '0' <= r && r <= '9' || r == '_') {
			return fmt.Errorf("redistest: name %q: want lowercase letters, digits and underscores", name)
		}
	}
	return nil
}
