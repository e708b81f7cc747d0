// Package registry lets the instances of idgen-server that share a lease store find one
// another: each writes a record of itself (an instance ID, its advertised URL, its worker
// ID, when it started) into that store with an expiry, renews it on a heartbeat, and
// removes it when it stops; the console's fleet view lists the live records.
//
// The records live beside the leases, not in them: the lease API ([lease.Backend]) neither
// lists holders nor says where one serves, and a record of its own keeps the lease
// stores' schemas as they are. Per store:
//
//   - SQL (SQLite, PostgreSQL, MySQL/MariaDB): one row per instance in a table of its own
//     (DefaultTable, "idgen_lease_servers"; idgen-server names it after its lease table),
//     created when missing (safely when many processes start at once), written with one
//     upsert; expiry is a column the writer sets from its clock and the reader compares
//     with its own: clocks that disagree by a fraction of the TTL only shift when a
//     stopped instance disappears, and a writer whose clock runs behind by more than the
//     TTL is not listed (keep the clocks in sync, as the leases need anyway).
//   - Redis: one key per instance, Prefix+"server:"+ID, holding JSON, with a TTL (SET PX):
//     Redis expires it. Indexed by the sorted set Prefix+"servers" (score: the expiry in
//     ms), so a List reads the index and then each record, never the keyspace; each key
//     on its own, so a Redis Cluster serves it whatever the keys' slots.
//
// A record that does not decode is skipped by List (ErrUndecodable), not fatal to it.
//   - etcd: one key per instance, Prefix+"server/"+ID, attached to an etcd lease that each
//     heartbeat keeps alive: etcd deletes it when the heartbeats stop. Listed with one
//     prefix Get.
//
// A record is a hint for a view, never a source of uniqueness: worker IDs stay unique by
// their leases alone, whatever the records say.
//
// [lease.Backend]: https://pkg.go.dev/github.com/idgen/idgen/runtime/lease#Backend
package registry
