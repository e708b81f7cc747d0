package idgorm

import (
	"context"
	"errors"

	"gorm.io/gorm"

	"github.com/idgen/idgen/runtime/ledger"
)

// errDone rolls back the transaction of a key already recorded.
var errDone = errors.New("idgorm: key already recorded")

// OnceTx runs fn in a transaction of db together with the record of key in l (see
// ledger.Ledger), and commits both or neither: it reports whether fn ran and committed
// (true), or the key was already recorded (false: nothing ran, acknowledge the message).
// An error from fn, or a panic, rolls everything back, so a redelivery runs it again. A
// transaction the database aborted for contention (deadlock, serialization failure, busy
// SQLite) is run again, fn included, up to 10 times, unless db is itself in a transaction
// (OnceTx then runs in a savepoint, and a deadlock has rolled back the caller's whole
// transaction: the error is returned for the caller to run its transaction again). The
// context is db's (db.WithContext).
//
//	ran, err := idgorm.OnceTx(db.WithContext(ctx), ledger, msg.ID, func(tx *gorm.DB) error {
//		return tx.Create(&Order{RequestID: msg.ID, Cents: 100}).Error
//	})
func OnceTx(db *gorm.DB, l *ledger.Ledger, key string, fn func(tx *gorm.DB) error) (ran bool, err error) {
	ctx := db.Statement.Context
	if ctx == nil {
		ctx = context.Background()
	}
	run := func() error {
		return db.Transaction(func(tx *gorm.DB) error {
			first, err := l.Record(ctx, tx.Statement.ConnPool, key)
			if err != nil {
				return err
			}
			if !first {
				return errDone
			}
			return fn(tx)
		})
	}
	if _, nested := db.Statement.ConnPool.(gorm.TxCommitter); nested {
		err = run()
	} else {
		err = ledger.Retry(ctx, run)
	}
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, errDone):
		return false, nil
	}
	return false, err
}
