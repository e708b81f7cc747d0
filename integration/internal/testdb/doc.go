// Package testdb gives each test package its own database on the servers named by
// IDGEN_TEST_POSTGRES_DSN and IDGEN_TEST_MYSQL_DSN, and a fresh SQLite file, so packages
// that share a server can run their tests in parallel.
//
// A database is named "idgen_" + name, where name is chosen by the caller: use the name of
// the calling package ("uniq", "lease", "gormplugin"), and add a suffix ("uniq_gorm") when
// tests of one package that need a database run in parallel with each other. Names are
// lowercase letters, digits and underscores, so they never need quoting. The database is
// dropped if it exists, created, and dropped again when the test ends.
//
// Redis tests share the server in IDGEN_TEST_REDIS_DSN under a key prefix of their own
// (Redis), the Redis Cluster in IDGEN_TEST_REDIS_CLUSTER_ADDRS likewise (RedisCluster), or
// start a redis-server of their own (StartRedis, StartRedisCluster) when they need a
// configuration of their own (persistence on or off) or to restart, kill or flush it.
// These are the published plugins/redis/redistest, which the Redis backends' own tests
// use too, under the names the tests here know.
//
// Without the variable the test is skipped with a message naming it; with the variable set
// but the server unreachable the test fails, because a configured server that does not
// answer is a broken environment, not a reason to skip.
package testdb
