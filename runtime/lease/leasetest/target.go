package leasetest

import "testing"

// Target says where a backend lives, in a form a worker process can be handed: it
// travels as JSON in the worker's environment, so it holds everything the test package's
// Opener needs to reach the store from a new process. The harness reads none of it.
type Target struct {
	// Kind tells the Opener which backend to open. idgen's tests use sqlite, postgres,
	// mysql, redis, rediscluster and etcd.
	Kind string
	// DSN says where the store is: a database DSN, a URL, comma-separated addresses.
	DSN string
	// Prefix is the test's own key prefix on a shared server, if it has one.
	Prefix string
	// Persistent says the server keeps its data across a restart. idgen's Redis Openers
	// pass AllowNoPersistence when it is false: a server that keeps nothing on disk is
	// refused otherwise, and nothing a test stores needs to outlive it.
	Persistent bool
}

// Kind is a store the fleet runs on: its name (the subtest's) and how a test gets a Target
// on it. Setup gives the test a store of its own (a new database, a key prefix), removed
// when the test ends, or skips the test when the store is not configured.
type Kind struct {
	// Name names the store, and the subtests of Processes and Bench on it.
	Name string
	// Setup returns a Target for the test t, or skips t.
	Setup func(t testing.TB) Target
}
