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
//     (DefaultTable, "idgen_servers"), created when missing (safely when many processes
//     start at once), written with one upsert; expiry is a column the writer sets from its
//     clock and the reader compares with its own, so clocks that disagree by a fraction of
//     the TTL only shift when a stopped instance disappears.
//   - Redis: one key per instance, Prefix+"server:"+ID, holding JSON, with a TTL (SET PX):
//     Redis expires it. Listed with SCAN (never KEYS), over every master of a cluster.
//   - etcd: one key per instance, Prefix+"server/"+ID, attached to an etcd lease that each
//     heartbeat keeps alive: etcd deletes it when the heartbeats stop. Listed with one
//     prefix Get.
//
// A record is a hint for a view, never a source of uniqueness: worker IDs stay unique by
// their leases alone, whatever the records say.
//
// [lease.Backend]: https://pkg.go.dev/github.com/idgen/idgen/runtime/lease#Backend
package registry
