package etcdlease

import (
	"io"
	"strings"
	"testing"

	"github.com/idgen/idgen/runtime/lease"
)

// target says where the etcd of a fleet test is, in a form a child process can be handed:
// its endpoints (comma-separated, in DSN) and the key prefix of this test run. Kind and
// Persistent are runtime/lease's fields, kept so the harness copied from there reads the
// same.
type target struct {
	Kind       string
	DSN        string
	Prefix     string
	Persistent bool
}

// kinds are the stores the fleet tests run against: the etcd of IDGEN_TEST_ETCD_ENDPOINTS.
var kinds = []struct {
	name  string
	setup func(t testing.TB) target
}{
	{"etcd", func(t testing.TB) target {
		eps, prefix := testPrefix(t, "lease")
		return target{Kind: "etcd", DSN: strings.Join(eps, ","), Prefix: prefix, Persistent: true}
	}},
}

// open returns a backend on tg in namespace ns (a key prefix of its own) and what closes
// its client.
func open(tg target, ns string) (lease.Backend, io.Closer, error) {
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
