package consume

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/idgen/idgen/runtime/idem"
	"github.com/idgen/idgen/runtime/ledger"
)

// ErrNoKey is matched (errors.Is) by the error an adapter reports for a message that has
// no key: such a message cannot be deduplicated, so it is never processed; the adapter
// counts it and routes it as configured (dead-letter, terminate, reject).
var ErrNoKey = errors.New("consume: the message has no key")

// NoKeyError reports a message without a key; it matches ErrNoKey.
type NoKeyError struct {
	// Source names where the key was looked for: "message ID", or "header X-Key".
	Source string
	// Message identifies the message for the log: a delivery tag, a stream sequence.
	Message string
}

// Error implements error.
func (e *NoKeyError) Error() string {
	return fmt.Sprintf("consume: message %s has no key (looked in the %s)", e.Message, e.Source)
}

// Is reports whether target is ErrNoKey.
func (e *NoKeyError) Is(target error) bool { return target == ErrNoKey }

// Processor applies the effect of message m under key and reports whether it ran (true:
// its effect committed now) or the key was already done (false: nothing ran). An error
// means no effect committed, and the adapter delivers the message again: at once without
// counting an attempt when the error is Unavailable (the store's, and the adapter pauses,
// see Gate), after a delay and counting one otherwise. An adapter calls it with a
// non-empty key and acknowledges the message only after it returned nil.
//
// key is what the Processor records: the message's key scoped by its consumer
// (ledger.ScopedKey of the queue, or of the stream and consumer, or of the name the
// adapter's options set), so that one message ID on two queues is two keys. The message's
// own key is in m (the adapters' Delivery.Key).
type Processor[M any] func(ctx context.Context, key string, m M) (ran bool, err error)

// OnceTx returns a Processor that runs fn in a transaction of db with the record of the
// message key in l (ledger.OnceTx): fn's rows and the key commit together or not at all, so a
// redelivered message, or a producer's retry, finds its key and runs nothing. fn must do
// all its work in tx.
//
// When the work fails with an error that is not Unavailable (one that counts toward the
// message's attempts, and may dead-letter it), the Processor first asks l whether key is
// recorded (Ledger.Recorded): if a delivery of the same message committed meanwhile, or an
// earlier COMMIT did commit although its answer was lost, the message is done and the
// Processor reports it so (ran false, no error), and the adapter acknowledges it.
func OnceTx[M any](db *sql.DB, l *ledger.Ledger, fn func(ctx context.Context, tx *sql.Tx, m M) error) Processor[M] {
	return func(ctx context.Context, key string, m M) (bool, error) {
		ran, err := ledger.OnceTx(ctx, db, l, key, func(ctx context.Context, tx *sql.Tx) error { return fn(ctx, tx, m) })
		if err != nil && recorded(ctx, db, l, key, err) {
			return false, nil
		}
		return ran, err
	}
}

// recorded reports, for the failed work of key whose error counts, whether key is
// recorded after all. A failed read leaves the error as it was.
func recorded(ctx context.Context, db *sql.DB, l *ledger.Ledger, key string, err error) bool {
	if Unavailable(err) {
		return false // tried again anyway, and then the record, if any, is found
	}
	done, rerr := l.Recorded(ctx, db, key)
	return rerr == nil && done
}

// InTx returns a Processor that runs fn in a transaction of db and commits it, with no
// record of the key: the same work as OnceTx without the deduplication, so a redelivery or
// a producer's retry runs it again. For handlers written for OnceTx whose effects are
// idempotent by themselves (an upsert), and as the baseline that measures what OnceTx's
// record costs.
func InTx[M any](db *sql.DB, fn func(ctx context.Context, tx *sql.Tx, m M) error) Processor[M] {
	return func(ctx context.Context, _ string, m M) (ran bool, err error) {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return false, fmt.Errorf("consume: beginning a transaction: %w", err)
		}
		defer func() {
			if !ran {
				tx.Rollback()
			}
		}()
		if err := fn(ctx, tx, m); err != nil {
			return false, err
		}
		if err := tx.Commit(); err != nil {
			return false, fmt.Errorf("consume: committing: %w", err)
		}
		return true, nil
	}
}

// Once returns a Processor that runs fn under a claim of the message key in store
// (idem.Once): a key done before runs nothing; a key another consumer holds is an error
// matching idem.ErrInProgress (the message is delivered again later); an error from fn gives
// the key back. For effects outside the database: a crash after fn's effect and before the
// key is marked done lets a redelivery repeat the effect.
func Once[M any](store idem.Store, fn func(ctx context.Context, m M) error, opts idem.OnceOptions) Processor[M] {
	return func(ctx context.Context, key string, m M) (bool, error) {
		ran := false
		err := idem.Once(ctx, store, key, func(ctx context.Context) error {
			ran = true
			return fn(ctx, m)
		}, opts)
		return ran && err == nil, err
	}
}

// AtLeastOnce returns a Processor that runs fn for every delivery, with no
// deduplication: a redelivery or a producer's retry runs it again. For handlers that are
// idempotent by themselves, and as the baseline the adapters' benchmarks compare with.
func AtLeastOnce[M any](fn func(ctx context.Context, m M) error) Processor[M] {
	return func(ctx context.Context, _ string, m M) (bool, error) {
		if err := fn(ctx, m); err != nil {
			return false, err
		}
		return true, nil
	}
}
