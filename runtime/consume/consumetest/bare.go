package consumetest

import (
	"context"
	"database/sql"

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
