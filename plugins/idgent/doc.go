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
// a hit. The fields the annotation's Check names are compared as the database compares
// what it was sent: a nil Nillable field is NULL, and an instant is equal at the precision
// of its column (from the field's SchemaType, or ent's default column type).
//
// Code generated with entcext also keeps ent's bulk insert on MySQL, which takes a numeric
// ID for AUTO_INCREMENT, from replacing the typed IDs of TypedID schemas with
// LAST_INSERT_ID()+i, so CreateBulk returns the nodes with the IDs stored.
//
// Unique violations are recognised with runtime/uniq, by driver error codes; ent's own
// IsConstraintError matches message text and counts foreign-key errors too. On SQLite,
// whose message names only the columns, the index is named by asking the database for the
// unique index on exactly those columns.
package idgent
