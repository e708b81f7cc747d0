// Package leasetest is the multi-process fleet harness of runtime/lease's tests and of
// runtime/lease/etcdlease's: it runs the test binary again as worker processes that lease
// worker IDs from a store and issue IDs, logging events and IDs to files, and checks what
// they issued (no duplicate, each holder of a worker ID after the previous one). It knows
// no backend: each test package passes its own (an Opener, and the Kinds of store it runs
// on), so that it imports neither etcd nor go-redis.
//
// A test package wires it up with
//
//	func TestMain(m *testing.M)        { leasetest.Main(m, open) }
//	func TestProcesses(t *testing.T)   { leasetest.Processes(t, kinds) }
//	func BenchmarkFleet(b *testing.B)  { leasetest.Bench(b, kinds) }
//
// and builds tests of its own (a store restarted under the fleet) from Start, Proc,
// CheckIDs and the events. runtime/lease's README describes what the fleet test checks.
package leasetest

import "testing"

// Target says where a backend lives, in a form a worker process can be handed: the kind
// of store, its DSN, and the key prefix of this test run.
type Target struct {
	Kind   string // sqlite, postgres, mysql, redis, rediscluster, etcd (DSN: comma-separated addresses)
	DSN    string
	Prefix string
	// Persistent says the server keeps its data (a test's own with the AOF on): the
	// store is made without AllowNoPersistence. The machine's shared Redis keeps nothing
	// on disk, and tests on it opt in: nothing they store outlives them.
	Persistent bool
}

// Kind is a store the tests run against: its name and how a test gets one.
type Kind struct {
	Name  string
	Setup func(t testing.TB) Target
}
