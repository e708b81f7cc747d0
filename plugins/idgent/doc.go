// Package idgent is the idgen plugin for ent: schema mixins that give IDs and business
// numbers their values on create, a hook that turns unique violations into typed errors, and
// the runtime of the idempotent create that the entc extension in package entcext adds to
// the create builders of annotated schemas:
//
//	o, created, err := client.Order.Create().SetRequestID(k).SetCents(10).CreateOrGet(ctx)
//
// CreateOrGet inserts first. On PostgreSQL and SQLite the insert carries
// ON CONFLICT (key) DO NOTHING, so a transaction of the caller's survives a retried key; on
// MySQL and MariaDB a duplicate-key error on the key's index is the signal. Either way the
// existing row is then read (on MySQL with LOCK IN SHARE MODE, which sees rows committed
// after a REPEATABLE READ snapshot) and returned with created=false. A conflict on any other
// unique key is a *uniq.DuplicateError naming the constraint. One statement when new, two on
// a hit.
//
// Unique violations are recognised with runtime/uniq, by driver error codes; ent's own
// IsConstraintError matches message text and counts foreign-key errors too.
package idgent
