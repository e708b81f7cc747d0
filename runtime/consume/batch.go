package consume

import (
	"context"
	"database/sql"

	"github.com/idgen/idgen/runtime/ledger"
)

// DefaultBatchSize is the batch size adapters use when their BatchSize option is zero.
const DefaultBatchSize = 16

// Batch applies the effects of several messages at once: keys[i] is the key of ms[i], and
// ran[i] reports, as a Processor's ran does, whether ms[i]'s effect committed now (true)
// or its key was already done (false). It is all or nothing: an error means no effect of
// the batch committed, and the adapter then runs each message alone through
// Batch.Processor, so that the failing message is requeued or dead-lettered as it would
// be without batching, and the others are processed. An adapter acknowledges the messages
// of a batch only after it returned nil.
type Batch[M any] func(ctx context.Context, keys []string, ms []M) (ran []bool, err error)

// Processor returns the Processor that runs the batch with one message, which the
// adapters use for a batch of one and after a batch failed.
func (b Batch[M]) Processor() Processor[M] {
	return func(ctx context.Context, key string, m M) (bool, error) {
		ran, err := b(ctx, []string{key}, []M{m})
		if err != nil {
			return false, err
		}
		return ran[0], nil
	}
}

// OnceTxBatch is OnceTx for batches: one transaction of db records the batch's keys in l
// with one statement (ledger.Ledger.RecordBatch), runs fn for the messages whose key is new,
// in order, and commits; a key already done, or given twice in the batch, runs nothing
// (the second time). A batch of one is exactly OnceTx, which asks the ledger, before it
// reports a failure that counts, whether the key was recorded after all. fn must do all
// its work in tx, and see that its error fails the whole batch, which is then run again
// message by message.
func OnceTxBatch[M any](db *sql.DB, l *ledger.Ledger, fn func(ctx context.Context, tx *sql.Tx, m M) error) Batch[M] {
	return func(ctx context.Context, keys []string, ms []M) ([]bool, error) {
		if len(keys) == 1 {
			ran, err := ledger.OnceTx(ctx, db, l, keys[0], func(ctx context.Context, tx *sql.Tx) error { return fn(ctx, tx, ms[0]) })
			if err != nil && !recorded(ctx, db, l, keys[0], err) {
				return nil, err
			}
			return []bool{ran && err == nil}, nil
		}
		return ledger.OnceTxBatch(ctx, db, l, keys, func(ctx context.Context, tx *sql.Tx, i int) error { return fn(ctx, tx, ms[i]) })
	}
}

// Batches gathers the values of in into batches of at most size (1 if size < 1) and
// sends them on the returned channel, which it closes after in closed and the last batch
// was taken. It never waits to fill a batch: a batch is what arrived while the previous
// one waited for a taker, so under light load batches are of one, and under load they
// grow up to size.
func Batches[T any](in <-chan T, size int) <-chan []T {
	size = max(size, 1)
	out := make(chan []T)
	go func() {
		defer close(out)
		var pending []T
		for {
			if len(pending) == 0 {
				v, ok := <-in
				if !ok {
					return
				}
				pending = append(make([]T, 0, size), v)
				continue
			}
			recv := in
			if len(pending) >= size {
				recv = nil
			}
			select {
			case v, ok := <-recv:
				if !ok {
					out <- pending
					return
				}
				pending = append(pending, v)
			case out <- pending:
				pending = nil
			}
		}
	}()
	return out
}
