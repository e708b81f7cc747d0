// Package sqlstore is what the SQL stores of idgen (runtime/lease, runtime/segment,
// runtime/idem and runtime/ledger) share beyond the public rules of runtime/sqldb: each
// dialect's placeholders, the start of every constructor, creating a store's tables once
// however many goroutines ask, and the table names their tests try.
package sqlstore
