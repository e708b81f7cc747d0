// Package etcdlease is a lease.Backend on etcd (client v3), for fleets that already run
// it: worker IDs are claimed with one transaction each on keys bound to an etcd lease, so
// etcd itself frees an ID whose holder stops renewing. It is a module of its own, so that
// users of the other backends never link the etcd client.
//
// # Keys
//
// Under Options.Prefix (DefaultPrefix, "idgen/lease/"), per worker ID w:
//
//   - holder/w: the holder's token, attached to the holder's etcd lease; it exists while
//     the lease is live, and etcd deletes it when the lease expires or is revoked.
//   - owner/w: the token of the latest claim, kept after the lease ends, so that a renewal
//     or release tells "my lease expired" from "another holder took the ID".
//   - expires/w: when the latest lease ends at the latest: the claim's or renewal's start
//     plus the TTL, or the time of the release.
//   - last/w: the latest tick any holder recorded (on renewal or release).
//
// Times are Unix milliseconds written as 16 decimal digits, so that etcd compares them
// (as bytes) in a transaction as numbers. owner, expires and last are not attached to any
// lease: they outlive it, which is how the next holder starts after the previous one.
//
// # Steps
//
//   - Acquire grants an etcd lease of the TTL (etcd counts whole seconds, at least its own
//     minimum: 1.5 election timeouts rounded up, 2 s at the defaults), lists holder/ (only
//     a key ending in an ID in canonical decimal holds one: a stray "01", "+1" or "-0" is
//     ignored), and claims the lowest ID without a holder (AcquireRange, for
//     lease.Config.MinWorker: the lowest in [min, max]) with one transaction: if
//     holder/w does not exist, put holder/w (on the lease), owner/w and expires/w, and
//     read the old owner/w, expires/w and last/w. A claim that lost a race to another
//     claimer tries the next lowest again.
//   - Renew is one transaction, if holder/w is the token: raise last/w, put expires/w; then
//     one KeepAliveOnce of the holder's lease (its ID read back in the transaction).
//   - Release is one transaction, if owner/w is the token: raise last/w, lower expires/w to
//     now, delete holder/w; then it revokes the lease.
//
// # Clocks
//
// etcd has no clock a client can read: expiry is etcd's own countdown, and the times
// recorded (Claim.Prev, Claim.Expires, LostError.Expired) are read on the holders'
// clocks. A holder records its own end, so a next holder whose clock is behind waits for
// it (the generator's rollback policy), as on the other backends; Config.Skew bounds how
// far a forgotten holder's clock may run ahead of a fresh claimer's.
//
// etcd keeps what it acknowledges (its WAL is fsynced before it replies) and restores
// leases on restart with a fresh TTL, so a restart with its data loses nothing; an etcd
// whose data directory was lost is a new store, and claims on it are fresh
// (Claim.Fresh).
package etcdlease
