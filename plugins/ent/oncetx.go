package idgent

import (
	"context"
	"fmt"

	"github.com/idgen/idgen/internal/sqlerr"
	"github.com/idgen/idgen/internal/sqlstore"
	"github.com/idgen/idgen/runtime/idem"
)

// Tx is what OnceTx needs of a transaction: the *ent.Tx that ent generates with the
// sql/execquery feature (entcext turns it on) has these methods.
type Tx interface {
	idem.Execer
	Commit() error
	Rollback() error
}

// maxTxAttempts bounds how often OnceTx runs a transaction the database aborted for
// contention.
const maxTxAttempts = 10

// OnceTx runs fn in a transaction that begin starts (client.Tx) together with the record
// of key in l (see idem.Ledger), and commits both or neither: it reports whether fn ran
// and committed (true), or the key was already recorded (false: nothing ran, acknowledge
// the message). An error from fn, or a panic, rolls everything back, so a redelivery runs
// it again. A transaction the database aborted for contention (deadlock, serialization
// failure, busy SQLite) is run again, fn included, up to 10 times.
//
//	ran, err := idgent.OnceTx(ctx, client.Tx, ledger, msg.ID, func(ctx context.Context, tx *ent.Tx) error {
//		return tx.Order.Create().SetRequestID(msg.ID).SetCents(100).Exec(ctx)
//	})
func OnceTx[T Tx](ctx context.Context, begin func(context.Context) (T, error), l *idem.Ledger, key string, fn func(ctx context.Context, tx T) error) (ran bool, err error) {
	for attempt := 0; ; attempt++ {
		ran, err = onceTx(ctx, begin, l, key, fn)
		if err == nil || !sqlerr.Transient(err) || attempt+1 == maxTxAttempts {
			return ran, err
		}
		if perr := sqlstore.Pause(ctx, attempt); perr != nil {
			return false, err
		}
	}
}

func onceTx[T Tx](ctx context.Context, begin func(context.Context) (T, error), l *idem.Ledger, key string, fn func(ctx context.Context, tx T) error) (ran bool, err error) {
	tx, err := begin(ctx)
	if err != nil {
		return false, fmt.Errorf("idgent: beginning a transaction: %w", err)
	}
	defer func() {
		if !ran {
			tx.Rollback()
		}
	}()
	first, err := l.Record(ctx, tx, key)
	if err != nil || !first {
		return false, err
	}
	if err := fn(ctx, tx); err != nil {
		return false, err
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("idgent: committing the work of %q: %w", key, err)
	}
	return true, nil
}
