// Package redislease is a lease.Backend on Redis: a standalone server, a Redis Cluster
// (*redis.ClusterClient) or a *redis.Ring, through github.com/redis/go-redis/v9. It is a
// package of its own so that programs using only runtime/lease's SQL backend never link
// go-redis:
//
//	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"})
//	backend, err := redislease.New(ctx, client, redislease.Options{}) // hashes idgen:lease:*
//	l, err := lease.Acquire(ctx, backend, lease.Config{Layout: snowflake.Classic(), TTL: 10 * time.Second})
//
// Package lease has the manual of the Lease that drives the backend, and why its IDs
// stay unique; this one says how the leases are kept in Redis.
//
// # Keys
//
// Three hashes keyed by worker ID, under Options.Prefix (DefaultPrefix, "idgen:lease:"):
// Prefix+"holder" (the holder's token), Prefix+"expires" (when the lease ends, Unix
// milliseconds of Redis's clock) and Prefix+"last" (the latest tick any holder recorded,
// on renewal or release). Expiry is a field, not a key TTL, because the recorded tick must
// outlive the lease. [Backend.Keys] returns the three names.
//
// # Steps
//
// Each step is one Lua script, so it is atomic, and each reads the time from Redis (TIME),
// so expiry is judged by one clock whatever the holders' clocks say:
//
//   - Acquire walks the IDs from 0 (AcquireRange, for lease.Config.MinWorker: from min, up
//     to max only) and claims the first whose expires field is not in the future: it sets
//     holder and expires, and returns the recorded tick and the previous expiry. A missing
//     holder or expires field is a fresh claim (lease.Claim.Fresh): the ID was never
//     leased, or Redis lost it. A claim costs one hash lookup per held ID below the one it
//     takes (one that finds all 1,024 of Classic() held takes about a millisecond of
//     Redis's time).
//   - Renew, if holder is the token and the lease has not expired: extends expires by the
//     TTL and raises last. Otherwise a *lease.LostError: taken, expired, or no lease
//     recorded.
//   - Release, if holder is the token: lowers expires to now (the ID is free at once) and
//     raises last.
//
// # Redis Cluster
//
// Every script touches the three hashes, and Redis Cluster runs a script only when all its
// keys are in one slot (CROSSSLOT otherwise): on a *redis.ClusterClient the prefix carries
// a hash tag, a non-empty "{...}" whose text alone decides the slot. With no prefix a
// cluster client gets [DefaultClusterPrefix] ("{idgen:lease}:"); a prefix of the caller's
// must contain one ("{orders}:lease:", "orders:{lease}:"), and [New] refuses one without
// it with a [*PrefixError] instead of adding it, since every process of a fleet must name
// the same keys (a fleet moving from one Redis to a cluster keeps its keys only if its
// prefix already had a tag). A fleet's leases live on one master: losing it stops the
// fleet's renewals until it is back, and its generators stop at their deadlines. A
// *redis.Ring shards by each script's first key and needs no tag.
//
// # Persistence
//
// A lease is only as durable as the hashes: a Redis that restarts without its data, or a
// failover to a replica that missed the latest writes, forgets leases and recorded ticks.
// A Redis that forgets everything is covered by the Lease's wait on fresh claims (see
// package lease, "Stores that forget"); one that forgets only its latest writes is not,
// and can hand out an ID still in use. So [New] refuses a server without the append-only
// file (INFO persistence: aof_enabled:1; RDB snapshots alone lose the writes since the
// last one), or one that refuses INFO (managed services), with a [*NotPersistentError]
// ([ErrNotPersistent]; the same type runtime/segment and runtime/idem return) naming the
// server and saying why, unless [Options.AllowNoPersistence] is set; on a
// *redis.ClusterClient it checks every master, on a *redis.Ring every shard. Replica
// failover is not checked: run Redis with appendonly (appendfsync always for the
// strictest) and without asynchronous failover, or use SQL.
//
// The package is named for what it is, runtime/lease's backend on Redis, as etcdlease is
// its backend on etcd.
package redislease
