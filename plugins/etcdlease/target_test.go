package etcdlease

import (
	"io"
	"strings"
	"testing"

	"github.com/idgen/idgen/runtime/lease"
	"github.com/idgen/idgen/runtime/lease/leasetest"
)

// kinds are the stores the fleet tests run against: the etcd of IDGEN_TEST_ETCD_ENDPOINTS
// (DSN: its endpoints, comma-separated), under the key prefix of this test run.
var kinds = []leasetest.Kind{
	{Name: "etcd", Setup: func(t testing.TB) leasetest.Target {
		eps, prefix := testPrefix(t, "lease")
		return leasetest.Target{Kind: "etcd", DSN: strings.Join(eps, ","), Prefix: prefix, Persistent: true}
	}},
}

// open returns a backend on tg in namespace ns (a key prefix of its own) and what closes
// its client.
func open(tg leasetest.Target, ns string) (lease.Backend, io.Closer, error) {
	c, err := dial(strings.Split(tg.DSN, ","))
	if err != nil {
		return nil, nil, err
	}
	b, err := New(c, Options{Prefix: tg.Prefix + ns + "/"})
	if err != nil {
		c.Close()
		return nil, nil, err
	}
	return b, c, nil
}
