// Package consume is what a broker adapter runs for each message: a Processor applies the
// message's effect at most once per key and says whether it ran, and Stats counts what
// the consumer saw. The adapters (plugins/idrabbit, plugins/idjetstream) are modules of their
// own, so the core module never depends on a broker client; this package is the part they
// share, with the standard library, runtime/idem and runtime/ledger only.
//
// Pick the Processor by where the effect lives:
//
//   - OnceTx: the effect is rows in one SQL database. The message key is recorded with
//     ledger.Ledger in the effect's own transaction, so both commit or neither does; no lock
//     can lapse. This is exactly-once effects.
//   - Once: the effect is outside the database (an e-mail, a call to another service). The
//     key is claimed in an idem.Store, renewed while the handler runs, and marked done
//     after it; a crash between the effect and the mark can repeat the effect.
//   - InTx and AtLeastOnce: no deduplication, for handlers that are idempotent by
//     themselves; InTx runs an OnceTx handler in a plain transaction, the baseline of the
//     adapters' benchmarks.
//
// A Batch is a Processor for several messages at once, all or nothing: OnceTxBatch records
// a batch's keys with one statement (ledger.Ledger.RecordBatch) in one transaction with all
// their effects, which is what makes exactly-once consumption about as fast as a bare
// consumer (one COMMIT and one ledger statement for many messages instead of each). When a
// Batch fails, an adapter runs its messages one at a time through Batch.Processor, so a
// failing message is accounted for as without batching. Batches is the gathering the
// adapters share: what arrived while the workers were busy, up to a size, never waiting.
//
// An adapter acknowledges a message only after its Processor (or Batch) returned: ran or not, the
// effect has committed by then; an error means it did not, and the message is delivered
// again (or dead-lettered once it has failed too often). The adapters record a message
// under its key scoped by the consumer (ledger.ScopedKey of the queue, or of the stream
// and durable consumer), so one message ID on two queues is two records in one ledger.
//
// A failure is the message's or the store's. Unavailable tells them apart (a refused,
// reset or closed connection, a server shutting down or starting up, a timeout, a deadlock
// or serialization failure; a handler marks its own with ErrUnavailable). The adapters run
// every Processor call through a Gate: on the store's failure it pauses the consumer with
// a backoff (DefaultMinPause to DefaultMaxPause), holds the message (unacknowledged, or in
// progress) and tries it again when a probe finds the store back, and the attempt does not
// count; only the message's own failures count toward the adapter's MaxAttempts or
// MaxDeliver. So a database outage dead-letters nothing, and a consumer resumes within
// about DefaultMaxPause of the database's return. OnceTx asks the ledger (Recorded) before
// it reports a failure that counts, so a message whose effect committed although the
// answer to its COMMIT was lost is acknowledged rather than dead-lettered.
//
// The package is named for the act the adapters perform (consume a message), not for a
// broker, so that both adapters and their users share one vocabulary.
package consume
