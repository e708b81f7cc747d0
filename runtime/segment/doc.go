// Package segment hands out dense, strictly increasing int64 IDs per business tag
// ("order", "payment") from blocks reserved in a shared store (PostgreSQL, MySQL/MariaDB,
// SQLite here, Redis in package redissegment) with one round trip per block, the
// "segment" mode of Meituan's Leaf. Unlike package snowflake its IDs carry no time and
// need no clock or worker ID, and they leave no holes beyond those of blocks a process
// never finished, but every block needs the store: when it is down, an [Allocator] serves
// only what it had buffered.
//
// # Use
//
// Make a [Store] ([NewSQL], or redissegment.New for Redis) and one [Allocator] per tag
// with [New]; it is an idgen.Source, so the ORM plugins and generated types take it as they
// take a snowflake generator:
//
//	store, err := segment.NewSQL(db, sqldb.Postgres, segment.SQLOptions{}) // table idgen_segment
//	orders, err := segment.New(store, "order", segment.Options{Step: 1000})
//	id, err := orders.NextInt64(ctx)
//
// # How it works
//
// [Store.Reserve] moves a tag's counter up by a step in one atomic statement (one INCRBY
// on Redis) and returns the block it passed over. An Allocator serves a block from memory
// and, once a fraction [Options.Threshold] of it is used, reserves the next one in the
// background (double buffering), so callers wait on the store only when they drain a block
// faster than one round trip. The step doubles, up to [Options.MaxStep], when reservations
// come less than [Options.Target] apart, and halves, down to [Options.MinStep], when they
// come more than twice Target apart.
//
// # Guarantees and limits
//
// Blocks never overlap, because the store's counter only moves up; a process that dies or
// restarts loses the rest of its blocks (gaps, never repeats), and so does a reservation
// whose reply was lost. Within an Allocator, IDs are handed out in increasing order, so
// each goroutine sees its IDs increase; across processes IDs are unique but interleave by
// block. When the store fails, callers get the buffered IDs, then a [*UnavailableError]
// (matching [ErrUnavailable]) until a reservation succeeds again.
//
// The store must not forget: a counter that moves back (a Redis without persistence, a
// failover to a replica that missed writes, a max_id lowered by hand) repeats IDs.
// redissegment.New refuses a Redis without the append-only file unless told otherwise. An
// Allocator refuses a block not above the highest it has seen, so one process never
// repeats its own IDs, but across processes a store that forgot repeats them, and nothing
// in the store can prevent that.
//
// Many processes starting at once on a new database is not an error: the table is created
// with CREATE TABLE IF NOT EXISTS, run again when it loses the creation race to another
// process ([SQL.CreateTable]). Table names follow the rule of [TableError], shared with
// runtime/lease and runtime/idem.
//
// # Packages
//
// This package has the Allocator and the SQL store and links no database driver (the
// program picks one for database/sql). The Redis store is package redissegment, so that a
// program on SQL does not link the Redis client.
package segment
