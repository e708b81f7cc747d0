// Package lease hands out snowflake worker IDs across a fleet, from a store the fleet
// already runs: PostgreSQL, MySQL/MariaDB, SQLite (one machine), Redis or a Redis Cluster
// (the package github.com/idgen/idgen/plugins/redis/redislease, so that programs on SQL
// never link go-redis), or etcd (the module github.com/idgen/idgen/plugins/etcdlease).
// A process claims
// the lowest free ID for a TTL, renews it in the background and issues IDs only while the
// lease is certainly held, so no two processes ever mint IDs under one worker ID at once.
//
// # Use
//
// Make a [Backend] ([NewSQL], redislease.New or etcdlease.New) and call [Acquire] with a
// [Config]; the
// returned [*Lease] issues IDs with Next, NextContext, NextN and NextInt64, and Close
// releases the ID on shutdown:
//
//	backend, err := lease.NewSQL(db, sqldb.Postgres, lease.SQLOptions{})
//	l, err := lease.Acquire(ctx, backend, lease.Config{Layout: snowflake.Classic(), TTL: 10 * time.Second})
//	defer l.Close(context.Background())
//	id, err := l.Next()
//
// # Why IDs stay unique
//
// A claim, a renewal and a release are each one atomic step in the store (one statement,
// one transaction, or one Lua script: never a read, then a write), and every expiry is read
// from the store's clock.
//
// Uniqueness across the holders of one worker ID rests on the IDs' stamps (the tick in
// each ID), not on when an ID leaves the process. The Lease gates its generator
// ([snowflake.Gate]) with a deadline on the generator's clock: the clock's reading at the
// start of the last successful claim or renewal, plus the TTL minus [Config.Margin]. The
// generator stamps no ID at or after it: it compares the tick it is about to stamp with
// the deadline (kept as a tick), so the check costs no clock read, and the ID costs what
// an ungated generator's does. The store extended the lease no earlier than that start,
// by the store's clock, so the lease ends at least TTL after it: the deadline is Margin
// before the lease's end, give or take how far this host's clock runs ahead of the
// store's, which [Config.Skew] bounds. The next holder stamps only after that end plus
// the drift and Skew (below). So every stamp of one holder is before every stamp of the
// next, whatever happens in between:
//
//   - A renewal that fails does not move the deadline, and one that returns late moves
//     it only to its own start plus TTL − Margin: the generator refuses once its clock
//     reaches the deadline, with a [*NotHeldError] (which matches [ErrNotHeld] and
//     [snowflake.ErrGateClosed]), and issues again if a later renewal succeeds.
//   - A process paused (a stop signal, a long GC pause) or a machine suspended (Go's
//     monotonic clock, which the default clock follows, stands still): resumed, the
//     generator may issue a few IDs stamped from the tick it read or cached before the
//     pause, before it sees the time. Those are stale, never late: they are stamped before
//     the deadline, and the next holder stamps after it. Then it refuses, learns from its
//     next renewal that the lease is lost, and claims a worker ID again, possibly another
//     one, with a new generator.
//   - A clock step: the default clock reads the wall clock once per claim and then the
//     monotonic clock, so a step moves neither stamps nor deadline. A custom clock
//     stepped forward reaches the deadline sooner; one stepped back stamps earlier, and its
//     [snowflake.RollbackPolicy] handles the rest.
//   - Close, and a renewal that finds the lease lost, close the gate at once. The
//     generator reads its clock (or its cached tick) before the gate, so a caller still
//     inside it stamps no later than the clock at the close plus the drift; a release
//     records the latest tick and ends the lease at the store's now, and the next holder
//     starts after both (plus the drift and Skew).
//
// What this does not promise is that no ID is returned after the deadline by the wall
// clock: a process resumed after its deadline may return IDs stamped before it. Refusing
// those would take a clock read per ID (on the VM this was measured on, 115 ns per ID
// through the Lease instead of 10 ns), for no gain in uniqueness: stamps are what
// another holder could repeat. Policies that stamp ahead of the clock
// ([snowflake.RollbackLogical], [snowflake.ExhaustBorrow]) are bounded by the deadline as
// well, so [Acquire] refuses a drift plus Skew that is not under TTL − TTL/3 − Margin, how
// far ahead of the clock the deadline is just before a renewal.
//
// Each lease records the latest tick its holder issued in, on every renewal and on
// release. A new holder's generator starts strictly after the later of that tick and the
// previous lease's end plus the drift its own policies allow ([Config.Skew] adds a bound
// on clock differences across the fleet). A clock behind that time is a rollback, handled
// by the generator's [snowflake.RollbackPolicy]: it waits, fails with a typed error, or
// runs a logical clock ahead; it never issues at or before it.
//
// # Stores that forget
//
// A claim that finds no record of its worker ID ([Claim].Fresh: the store is new, or lost
// its data, as a Redis without persistence does on a restart) cannot tell whether another
// process still holds the ID: one whose lease the store forgot keeps issuing until its
// next renewal finds the lease gone, and its gate closes by the end of the lease it last
// renewed, which is no later than the new lease's end. So the new holder's generator
// starts after the new lease's end plus the drift and [Config.Skew] (TTL + drift + Skew
// after the claim), and Next, NextN and WorkerID wait until then, bounded by their
// context; [Event].Fresh and Event.After on the Acquired event say so. The first claim of
// each worker ID on a new store pays this once; claims that find a record (a released or
// expired lease) wait no longer than before. A renewal that finds no record is a loss
// (a [*LostError], "no lease recorded"): the gate closes at once.
//
// # Tables
//
// The SQL backend creates its table (default name idgen_lease) with CREATE TABLE IF NOT
// EXISTS before its first claim; many processes starting at once on a new database is not
// an error (a CREATE that loses the race runs again until it finds the table). To run
// migrations yourself, create it beforehand ([SQL.Schema] returns the statements). The
// table name is spliced into SQL unquoted, so [NewSQL] accepts only [schema.]name parts of
// 1 to 63 ASCII letters, digits and underscores, not starting with a digit (the rule of
// [TableError], shared with runtime/segment and runtime/idem). PostgreSQL:
//
//	CREATE TABLE IF NOT EXISTS idgen_lease (
//		worker_id       bigint      NOT NULL PRIMARY KEY,
//		holder          varchar(64) NOT NULL,
//		expires_ms      bigint      NOT NULL,
//		last_ms         bigint      NOT NULL,
//		prev_expires_ms bigint      NOT NULL
//	)
//
// MySQL and MariaDB: the same columns in BIGINT and VARCHAR(64), ENGINE=InnoDB. SQLite:
// worker_id INTEGER NOT NULL PRIMARY KEY, holder TEXT, the others INTEGER. Times are Unix
// milliseconds: expires_ms and prev_expires_ms of the database's clock, last_ms of the
// holder's generator. The Redis backend keeps three hashes keyed by worker ID (holder,
// expires and last), hash-tagged on Redis Cluster; package redislease's doc has them.
//
// # Limits
//
//   - The store must not forget: a Redis without persistence, or a failover to a replica
//     that missed the latest writes, can hand out an ID still in use. redislease.New
//     refuses a server without the append-only file (INFO persistence: aof_enabled:1; RDB
//     snapshots alone lose the writes since the last one), or one that refuses INFO, with
//     a redislease.NotPersistentError unless its Options.AllowNoPersistence is set; on a
//     *redis.ClusterClient it checks every master. Replica failover is not checked.
//   - A store that forgets everything is covered by the wait above; one that forgets only
//     the latest writes is not: a failover to a replica that missed them, or a restore
//     from an old backup, hands out records that look live or expired but are stale, and
//     can hand out an ID still in use. Run Redis with persistence and without
//     asynchronous failover, or use SQL.
//   - On SQLite, a process stopped while it holds the database's write lock (a claim or a
//     renewal takes about a millisecond) blocks every other process's renewals until it
//     resumes; their generators stop at their deadlines and resume after reclaiming. IDs
//     stay unique, but the fleet pauses.
//   - Go's monotonic clock does not advance while a whole machine is suspended, and the
//     default clock follows it: a resumed VM goes on stamping from the time it was
//     suspended at, before its deadline, until its clock reaches the deadline or its next
//     renewal (at most TTL/3 later) finds the lease lost. Its IDs stay unique, but those
//     are stamped up to the suspend's length behind the rest of the fleet's; its next
//     claim reads the wall clock again.
//
// The package is named for what it holds, a lease; the worker IDs it hands out plug into
// package snowflake, and a Lease also satisfies worker.Source.
package lease
