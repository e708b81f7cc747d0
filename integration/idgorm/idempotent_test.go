package idgorm_test

import (
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"gorm.io/gorm"

	"github.com/idgen/idgen/plugins/idgorm"
	"github.com/idgen/idgen/runtime/uniq"
)

func TestCreateOrGet(t *testing.T) {
	for _, e := range databases(t, "gorm_idem") {
		t.Run(e.name, func(t *testing.T) {
			db := e.db.WithContext(ctx(t))
			key := idgorm.Key("RequestID")

			// New: one statement, and the key's lookup on the first call only; a retry: two,
			// the first row back, no hooks, no items.
			hooks := afterCreates.Load()
			first := Order{RequestID: "req-1", Amount: 10, Items: []Item{{SKU: "a"}}}
			e.statements.Store(0)
			e.lookups.Store(0)
			created, err := idgorm.CreateOrGet(db, &first, key)
			if err != nil || !created {
				t.Fatalf("first: %v %v", created, err)
			}
			if n, l := e.statements.Load(), e.lookups.Load(); n != 3 || l != 1 { // the lookup, the order, its item
				t.Errorf("first create with one item ran %d statements (%d lookups), want 3 (1 lookup)", n, l)
			}
			retry := Order{RequestID: "req-1", Amount: 10, Items: []Item{{SKU: "b"}}}
			e.statements.Store(0)
			e.lookups.Store(0)
			afterFirst := afterCreates.Load()
			created, err = idgorm.CreateOrGet(db, &retry, key)
			if err != nil || created {
				t.Fatalf("retry: %v %v", created, err)
			}
			if n, l := e.statements.Load(), e.lookups.Load(); n != 2 || l != 0 {
				t.Errorf("hit ran %d statements (%d lookups), want 2 (insert, select)", n, l)
			}
			if retry.ID != first.ID || retry.No != first.No {
				t.Errorf("retry got ID %d No %s, want the first's %d %s", retry.ID, retry.No, first.ID, first.No)
			}
			if afterCreates.Load() != afterFirst || afterFirst != hooks+1 {
				t.Errorf("AfterCreate ran %d times in all, want once", afterCreates.Load()-hooks)
			}
			var items int64
			db.Model(&Item{}).Where("order_id = ?", first.ID).Count(&items)
			if items != 1 {
				t.Errorf("%d items for the order, want 1: the retry's item must not be saved", items)
			}
			// Statements for a model without associations: 1 new, 2 hit.
			u := Order{RequestID: "req-plain", Amount: 1}
			e.statements.Store(0)
			e.lookups.Store(0)
			if created, err := idgorm.CreateOrGet(db, &u, key); err != nil || !created || e.statements.Load() != 1 || e.lookups.Load() != 0 {
				t.Errorf("plain new: %v %v, %d statements (%d lookups)", created, err, e.statements.Load(), e.lookups.Load())
			}

			// GORM's FirstOrCreate, for comparison: a query, then the insert.
			e.statements.Store(0)
			var foc Order
			if err := db.Where(Order{RequestID: "req-foc"}).FirstOrCreate(&foc).Error; err != nil || foc.ID == 0 {
				t.Fatalf("FirstOrCreate: %v", err)
			}
			if n := e.statements.Load(); n != 2 {
				t.Errorf("FirstOrCreate of a new row ran %d statements, want 2", n)
			}

			// Payload check.
			other := Order{RequestID: "req-1", Amount: 99}
			_, err = idgorm.CreateOrGet(db, &other, key, idgorm.Check("Amount"))
			var mm *idgorm.MismatchError
			if !errors.As(err, &mm) || !errors.Is(err, idgorm.ErrMismatch) || mm.Fields[0] != "Amount" || other.Amount != 10 {
				t.Errorf("payload mismatch: %v (%+v)", err, other)
			}
			same := Order{RequestID: "req-1", Amount: 10}
			if _, err := idgorm.CreateOrGet(db, &same, key, idgorm.Check("Amount")); err != nil {
				t.Errorf("same payload: %v", err)
			}

			// A conflict on another unique index, or the primary key, is a typed error.
			dupNo := Order{RequestID: "req-2", No: first.No}
			_, err = idgorm.CreateOrGet(db, &dupNo, key)
			var dup *uniq.DuplicateError
			if !errors.As(err, &dup) || !errors.Is(err, uniq.ErrDuplicate) {
				t.Fatalf("order number reused: %v", err)
			}
			if e.name == "sqlite" && (dup.Table != "orders" || len(dup.Columns) != 1 || dup.Columns[0] != "no") {
				t.Errorf("sqlite violation %+v", dup.Violation)
			}
			// SQLite's message names only the columns: CreateOrGet asks the catalog.
			if dup.Constraint != "idx_orders_no" {
				t.Errorf("constraint %q, want idx_orders_no (%v)", dup.Constraint, err)
			}
			if dupNo.ID == first.ID {
				t.Error("got someone else's row")
			}
			dupPK := Order{ID: first.ID, RequestID: "req-3"}
			if _, err := idgorm.CreateOrGet(db, &dupPK, key); !errors.Is(err, uniq.ErrDuplicate) {
				t.Errorf("primary key reused: %v", err)
			}

			// Soft-deleted holder of the key.
			gone := Order{RequestID: "req-gone", Amount: 5}
			if _, err := idgorm.CreateOrGet(db, &gone, key); err != nil {
				t.Fatal(err)
			}
			db.Delete(&gone)
			again := Order{RequestID: "req-gone", Amount: 5}
			if _, err := idgorm.CreateOrGet(db, &again, key); !errors.Is(err, idgorm.ErrDeleted) || again.ID != gone.ID || !again.DeletedAt.Valid {
				t.Errorf("soft-deleted: %v, %+v", err, again)
			}
		})
	}
}

// TestCreateOrGetInTransaction: a hit inside the caller's transaction leaves it usable, and
// it commits.
func TestCreateOrGetInTransaction(t *testing.T) {
	for _, e := range databases(t, "gorm_idem_tx") {
		t.Run(e.name, func(t *testing.T) {
			db := e.db.WithContext(ctx(t))
			var firstID, secondID int64
			err := db.Transaction(func(tx *gorm.DB) error {
				a := Order{RequestID: "tx-1", Amount: 1}
				if _, err := idgorm.CreateOrGet(tx, &a, idgorm.Key("RequestID")); err != nil {
					return err
				}
				b := Order{RequestID: "tx-1", Amount: 1}
				created, err := idgorm.CreateOrGet(tx, &b, idgorm.Key("RequestID"))
				if err != nil || created {
					return fmt.Errorf("hit in transaction: %v %v", created, err)
				}
				firstID, secondID = a.ID, b.ID
				// The transaction still works after the conflict.
				return tx.Create(&Order{RequestID: "tx-2"}).Error
			})
			if err != nil {
				t.Fatal(err)
			}
			if firstID != secondID {
				t.Fatalf("ids %d %d", firstID, secondID)
			}
			var n int64
			db.Model(&Order{}).Where("request_id IN ?", []string{"tx-1", "tx-2"}).Count(&n)
			if n != 2 {
				t.Fatalf("%d rows committed, want 2", n)
			}
		})
	}
}

// TestCreateOrGetConcurrent: 50 callers with one key at once get one row and all its ID.
func TestCreateOrGetConcurrent(t *testing.T) {
	for _, e := range databases(t, "gorm_idem_conc") {
		t.Run(e.name, func(t *testing.T) {
			db := e.db.WithContext(ctx(t))
			const callers = 50
			ids := make([]int64, callers)
			created := make([]bool, callers)
			errs := make([]error, callers)
			var wg sync.WaitGroup
			start := make(chan struct{})
			for i := range callers {
				wg.Go(func() {
					<-start
					o := Order{RequestID: "same-key", Amount: 7}
					created[i], errs[i] = idgorm.CreateOrGet(db, &o, idgorm.Key("RequestID"), idgorm.Check("Amount"))
					ids[i] = o.ID
				})
			}
			close(start)
			wg.Wait()
			winners := 0
			for i := range callers {
				if errs[i] != nil {
					t.Fatalf("caller %d: %v", i, errs[i])
				}
				if created[i] {
					winners++
				}
				if ids[i] != ids[0] || ids[i] == 0 {
					t.Fatalf("caller %d got ID %d, caller 0 got %d", i, ids[i], ids[0])
				}
			}
			var n int64
			db.Model(&Order{}).Where("request_id = ?", "same-key").Count(&n)
			if n != 1 || winners != 1 {
				t.Fatalf("%d rows, %d creators; want 1 and 1", n, winners)
			}
		})
	}
}

// TestRepeatableRead: under MariaDB's REPEATABLE READ, a row committed by another
// transaction after ours took its snapshot is still found.
func TestRepeatableRead(t *testing.T) {
	for _, e := range databases(t, "gorm_idem_rr") {
		if e.name != "mysql" {
			continue
		}
		db := e.db.WithContext(ctx(t))
		tx := db.Begin(&sql.TxOptions{Isolation: sql.LevelRepeatableRead})
		var n int64
		tx.Model(&Order{}).Count(&n) // takes the snapshot
		other := Order{RequestID: "rr-key", Amount: 4}
		if err := db.Create(&other).Error; err != nil {
			t.Fatal(err)
		}
		mine := Order{RequestID: "rr-key", Amount: 4}
		created, err := idgorm.CreateOrGet(tx, &mine, idgorm.Key("RequestID"))
		if err != nil || created || mine.ID != other.ID {
			t.Fatalf("repeatable read: created %v, %v, id %d want %d", created, err, mine.ID, other.ID)
		}
		if err := tx.Commit().Error; err != nil {
			t.Fatal(err)
		}
	}
}

// TestTranslateError: with GORM's TranslateError on, a duplicate is gorm.ErrDuplicatedKey
// and still a *uniq.DuplicateError naming the constraint.
func TestTranslateError(t *testing.T) {
	for _, e := range databases(t, "gorm_translate") {
		t.Run(e.name, func(t *testing.T) {
			db := e.db.Session(&gorm.Session{})
			cfg := *db.Config
			cfg.TranslateError = true
			db.Config = &cfg
			if err := db.Create(&User{Email: "t@x"}).Error; err != nil {
				t.Fatal(err)
			}
			err := db.Create(&User{Email: "t@x"}).Error
			if !errors.Is(err, gorm.ErrDuplicatedKey) {
				t.Fatalf("not ErrDuplicatedKey: %v", err)
			}
			v, ok := uniq.As(err)
			if !ok {
				t.Fatalf("uniq does not see %v", err)
			}
			if e.name != "sqlite" && v.Constraint != "idx_users_email" {
				t.Errorf("constraint %q", v.Constraint)
			}
			_, err = idgorm.CreateOrGet(db, &User{Email: "t@x"}, idgorm.Key("ID"))
			if !errors.Is(err, gorm.ErrDuplicatedKey) || !errors.Is(err, uniq.ErrDuplicate) {
				t.Errorf("CreateOrGet on another key: %v", err)
			}
			// Nested transactions (savepoints) still work through the wrapped dialector.
			err = db.Transaction(func(tx *gorm.DB) error {
				return tx.Transaction(func(tx2 *gorm.DB) error { return tx2.Create(&User{Email: "nested@x"}).Error })
			})
			if err != nil && !strings.Contains(err.Error(), "unsupported") {
				t.Errorf("nested transaction: %v", err)
			}
		})
	}
}
