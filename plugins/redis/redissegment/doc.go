// Package redissegment is a segment.Store on Redis: each business tag's counter is one
// integer key, and each reservation of a block is one INCRBY. It is a package of its own so
// that programs using the SQL store of runtime/segment never link the Redis client.
//
// # Use
//
// Make a Store with [New] on any redis.UniversalClient (a *redis.Client, a
// *redis.ClusterClient or a *redis.Ring) and give it to segment.New, one Allocator per tag:
//
//	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"})
//	store, err := redissegment.New(ctx, client, redissegment.Options{}) // keys idgen:segment:<tag>
//	orders, err := segment.New(store, "order", segment.Options{Step: 1000})
//	id, err := orders.NextInt64(ctx)
//
// # Keys and commands
//
// The key of tag is Options.Prefix+tag ([DefaultPrefix], "idgen:segment:", if empty). It
// holds the highest ID reserved so far; [Store.Reserve] runs INCRBY key step, which Redis
// executes atomically and which creates the key at 0 for a new tag, and returns the block
// [max-step+1, max] it passed over. Set a key higher by hand to start a tag elsewhere, never
// lower. On a *redis.ClusterClient the store works as is: every command has one key, so each
// tag's counter lives in its own slot, on one master.
//
// # Persistence
//
// The counter must not go back: a Redis that restarts without its data, or a failover to a
// replica that missed writes, starts a tag again from 0 and hands out blocks already used.
// New therefore asks the server (INFO persistence, on every master of a cluster and every
// shard of a ring) and refuses, with a [*NotPersistentError] matching [ErrNotPersistent], a
// server without the append-only file (aof_enabled:1; RDB snapshots alone lose the writes
// since the last one) and a server that refuses INFO, as managed services may, unless
// [Options.AllowNoPersistence] is set. A segment.Allocator refuses a block not above the
// highest it has seen, so one process never repeats its own IDs; across processes, a server
// that forgot repeats them, and no check in the store can prevent it, since what it would
// compare against is what the server forgot. Replicas and failover are outside the check.
//
// # What the tests show
//
// The store runs every store test of runtime/segment (blocks from 1, concurrent
// reservations never overlapping, eight processes starting at once, four processes drawing
// while one is killed) on the Redis in IDGEN_TEST_REDIS_DSN and on the Redis Cluster in
// IDGEN_TEST_REDIS_CLUSTER_ADDRS. Without persistence New refuses a server; opted in, a
// restart without data returns the block [1, 100] again, which the Allocator that had it
// refuses; with the AOF on the counter survives a SIGKILL. On a cluster whose master holding
// a tag's key is killed, the processes on that tag get *segment.UnavailableError once their
// buffers run out and draw on when the master is back on its AOF, with no ID repeated. The
// numbers are in the README.
package redissegment
