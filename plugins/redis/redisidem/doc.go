// Package redisidem is an idem.Store on Redis: one hash per key, and every transition
// (claim, renew, complete, release) one Lua script judged by Redis's clock. It is a package
// of its own so that programs using the SQL or memory store of runtime/idem never link the
// Redis client.
//
// # Use
//
// Make a Store with [New] on any redis.UniversalClient (a *redis.Client, a
// *redis.ClusterClient or a *redis.Ring) and give it to idem.New or idem.Once:
//
//	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"})
//	store, err := redisidem.New(ctx, client, redisidem.Options{Prefix: "orders:idem:"})
//	mw, err := idem.New(idem.Config{Store: store, Scope: tenantOf})
//
// # Keys and scripts
//
// A key's record is the hash Options.Prefix+key ([DefaultPrefix], "idgen:idem:", if empty)
// with its fingerprint, state, token, lock end and expiry, and once completed the
// response's status, headers and body. A key with a brace is named Options.Prefix+"{}"+key:
// Redis Cluster hashes a name by its first non-empty "{...}", and an empty first one
// makes it hash the whole name, so a caller's key such as "{x}" cannot choose the slot
// (and the master) of its records. A hash tag in the prefix stays the store's. A claim takes the key only when it is absent or its
// time is over, and returns the holder otherwise, atomically; Complete, Renew and Release
// act only for the claim's token. Each record carries a PEXPIREAT at its time plus
// [RedisGrace], so Redis removes records by itself and Purge is optional (it SCANs the
// prefix, on every master of a cluster). On Redis Cluster each record is one key and every
// script touches only it, so records spread over the masters with no hash tag needed.
//
// Records written by versions before the "{}" for keys with braces are not found under
// their old names (keys without braces keep theirs): such a key done before an upgrade and
// retried after it, within its TTL, runs again, and old and new processes do not see each
// other's claims of it; the old records expire by themselves.
//
// # Persistence
//
// A record is only as durable as Redis: a Redis that restarts without its data forgets
// every claim and completed key, and a late retry of any of them runs its request again.
// New therefore asks the server (INFO persistence, on every master of a cluster and every
// shard of a ring) and refuses, with a [*NotPersistentError] matching [ErrNotPersistent], a
// server without the append-only file (aof_enabled:1; RDB snapshots alone lose the writes
// since the last one) or one that refuses INFO, as managed services do. Set
// Options.AllowNoPersistence for a server you know persists by means the check cannot see,
// or to accept what a server that forgets does. Use maxmemory-policy noeviction: every
// record has a TTL, and any volatile-* policy may evict a live claim. A failover to a
// replica that missed writes can still let a request run twice; the check cannot see
// replication.
package redisidem
