// Package ledger records message keys in the same SQL transaction as the work they stand
// for, so that the work of a redelivered message commits once: the exactly-once effects of
// queue consumers and of the ORM plugins' OnceTx. Like an accounts ledger it only writes
// down what was done, holding no lock and keeping no response; for requests whose answer
// must be replayed, or whose effects are outside the database, use runtime/idem.
//
// A Ledger (New) records keys in one table (PostgreSQL, MySQL/MariaDB or SQLite, through
// database/sql or any transaction with ExecContext): Record in a transaction of yours,
// RecordBatch many keys in one statement, Purge the keys past their TTL. OnceTx, OnceIn
// and OnceTxBatch run work and its keys in one transaction, and run it again when the
// database aborted it for contention (Transient, Retry).
package ledger
