// Package redistest gives tests of code that stores in Redis a server to run on: a key
// prefix of their own on a shared server (Shared, SharedCluster), or a redis-server of
// their own (Start, StartCluster) when they need a configuration of their own, with
// persistence on or off, or to kill, restart or flush it. The tests of idgen's Redis
// backends use it, and so can the tests of yours.
//
// The shared servers are named by environment variables: IDGEN_TEST_REDIS_DSN (a URL,
// redis://127.0.0.1:6379/0) and IDGEN_TEST_REDIS_CLUSTER_ADDRS (the comma-separated
// host:port of a Redis Cluster's masters). Without the variable a test is skipped with a
// message naming it; with the variable set but the server not answering the test fails,
// because a configured server that does not answer is a broken environment, not a reason
// to skip. A server of the test's own needs redis-server on PATH (and redis-cli for a
// cluster); Start skips without it only when IDGEN_TEST_REDIS_DSN is unset as well.
//
// Everything a test makes is gone when it ends: the keys under its prefix are deleted,
// its servers are killed and their directories removed.
package redistest
