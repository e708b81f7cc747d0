package consumetest

import (
	"context"
	"database/sql"
	"sync/atomic"

	"github.com/idgen/idgen/runtime/consume"
)

// BareBatch is what a consumer that batches without this library does, for benchmarks:
// one transaction of db runs fn for every message of the batch and commits, with no
// ledger, so a redelivered message applies its effect again. Every ran is true.
func BareBatch[M any](db *sql.DB, fn func(ctx context.Context, tx *sql.Tx, m M) error) consume.Batch[M] {
	return func(ctx context.Context, keys []string, ms []M) ([]bool, error) {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return nil, err
		}
		defer tx.Rollback()
		for _, m := range ms {
			if err := fn(ctx, tx, m); err != nil {
				return nil, err
			}
		}
		if err := tx.Commit(); err != nil {
			return nil, err
		}
		ran := make([]bool, len(ms))
		for i := range ran {
			ran[i] = true
		}
		return ran, nil
	}
}

// BatchSizes counts the batches a Batch ran and their messages, for benchmarks that report
// how large the batches were.
type BatchSizes struct {
	batches, msgs atomic.Int64
}

// Count returns b, counting each call and its messages in s.
func Count[M any](s *BatchSizes, b consume.Batch[M]) consume.Batch[M] {
	return func(ctx context.Context, keys []string, ms []M) ([]bool, error) {
		s.batches.Add(1)
		s.msgs.Add(int64(len(ms)))
		return b(ctx, keys, ms)
	}
}

// Mean is the mean number of messages per batch, 0 before the first batch.
func (s *BatchSizes) Mean() float64 {
	n := s.batches.Load()
	if n == 0 {
		return 0
	}
	return float64(s.msgs.Load()) / float64(n)
}
