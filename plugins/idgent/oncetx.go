package idgent

import (
	"context"

	"github.com/idgen/idgen/runtime/ledger"
)

// OnceTx runs fn in a transaction that begin starts (client.Tx) together with the record
// of key in l (see ledger.Ledger), and commits both or neither: it reports whether fn ran
// and committed (true), or the key was already recorded (false: nothing ran, acknowledge
// the message). An error from fn, or a panic, rolls everything back, so a redelivery runs
// it again. A transaction the database aborted for contention (deadlock, serialization
// failure, busy SQLite) is run again, fn included, up to 10 times. It is ledger.OnceIn, for
// the *ent.Tx that ent generates with the sql/execquery feature (entcext turns it on).
//
//	ran, err := idgent.OnceTx(ctx, client.Tx, l, msg.ID, func(ctx context.Context, tx *ent.Tx) error {
//		return tx.Order.Create().SetRequestID(msg.ID).SetCents(100).Exec(ctx)
//	})
func OnceTx[T ledger.Tx](ctx context.Context, begin func(context.Context) (T, error), l *ledger.Ledger, key string, fn func(ctx context.Context, tx T) error) (ran bool, err error) {
	return ledger.OnceIn(ctx, begin, l, key, fn)
}
