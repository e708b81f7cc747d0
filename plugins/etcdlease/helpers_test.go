package etcdlease

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// EndpointsEnv names the etcd the server-backed tests use: comma-separated host:port
// endpoints, such as 127.0.0.1:2379. .ci/run starts one with a 100 ms election timeout,
// so that etcd grants the 1 s leases the fleet tests hold (its shortest lease is 1.5
// election timeouts rounded up to a second: 2 s at the defaults).
const EndpointsEnv = "IDGEN_TEST_ETCD_ENDPOINTS"

// endpoints returns the endpoints in EndpointsEnv, skipping the test naming the variable
// when it is unset.
func endpoints(t testing.TB) []string {
	t.Helper()
	v := os.Getenv(EndpointsEnv)
	if v == "" {
		t.Skip("set " + EndpointsEnv + " to run against etcd (e.g. 127.0.0.1:2379)")
	}
	return strings.Split(v, ",")
}

// dial returns a client of eps, with short timeouts so that a server that is down is
// reported, not waited for.
func dial(eps []string) (*clientv3.Client, error) {
	return clientv3.New(clientv3.Config{Endpoints: eps, DialTimeout: 5 * time.Second, Logger: quietLogger()})
}

// testPrefix returns a key prefix of the test's own in the etcd of EndpointsEnv,
// "idgen_test/<name>/<pid>/<random>/", whose keys are deleted when the test ends, and
// the endpoints.
func testPrefix(t testing.TB, name string) (eps []string, prefix string) {
	t.Helper()
	eps = endpoints(t)
	c, err := dial(eps)
	if err != nil {
		t.Fatalf("%s: %v", EndpointsEnv, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.Get(ctx, "idgen_test/ping"); err != nil {
		c.Close()
		t.Fatalf("%s is set but etcd does not answer: %v", EndpointsEnv, err)
	}
	prefix = fmt.Sprintf("idgen_test/%s/%d/%s/", name, os.Getpid(), strings.ToLower(rand.Text()[:8]))
	t.Cleanup(func() {
		defer c.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := c.Delete(ctx, prefix, clientv3.WithPrefix()); err != nil {
			t.Errorf("deleting keys %s*: %v", prefix, err)
		}
	})
	return eps, prefix
}

// newT returns a backend on its own prefix and client, closed when the test ends.
func newT(t testing.TB, name string) (*Backend, *clientv3.Client) {
	t.Helper()
	eps, prefix := testPrefix(t, name)
	c, err := dial(eps)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	b, err := New(c, Options{Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	return b, c
}
