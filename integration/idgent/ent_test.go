package idgent_test

import (
	"database/sql"
	"errors"
	"sync"
	"testing"

	"github.com/idgen/idgen/examples/ent/ent"
	"github.com/idgen/idgen/examples/ent/ent/order"
	"github.com/idgen/idgen/examples/ent/models"
	"github.com/idgen/idgen/plugins/idgent"
	"github.com/idgen/idgen/runtime/uniq"
)

func TestMixins(t *testing.T) {
	for _, e := range databases(t, "ent_mixins") {
		t.Run(e.name, func(t *testing.T) {
			c, cx := e.client, ctx(t)
			u := c.User.Create().SetEmail("a@x").SaveX(cx)
			if u.ID.IsZero() {
				t.Fatal("user ID not filled")
			}
			if p, _ := u.ID.Parts(); p.Worker != 9 {
				t.Errorf("user ID from worker %d", p.Worker)
			}
			mine := c.User.Create().SetID(models.UserID(4242)).SetEmail("mine@x").SaveX(cx)
			if mine.ID != 4242 {
				t.Errorf("a set ID was replaced: %v", mine.ID)
			}
			orders := c.Order.CreateBulk(
				c.Order.Create().SetRequestID("b1").SetCents(1),
				c.Order.Create().SetRequestID("b2").SetCents(2),
				c.Order.Create().SetRequestID("b3").SetCents(3),
			).SaveX(cx)
			seen := map[int64]bool{}
			for _, o := range orders {
				if o.ID == 0 || seen[o.ID] || o.No == "" {
					t.Fatalf("bulk order %+v", o)
				}
				seen[o.ID] = true
			}
			if orders[0].No == orders[1].No {
				t.Error("bulk orders share a number")
			}
			p := c.Payment.Create().SetOrderID(orders[0].ID).SetAttempt(1).SetCents(1).SaveX(cx)
			if p.ID.IsZero() || p.TxnNo == "" {
				t.Fatalf("payment %+v", p)
			}
			// Read back: the typed values survive the database.
			got := c.Payment.GetX(cx, p.ID)
			if got.ID != p.ID || got.TxnNo != p.TxnNo {
				t.Errorf("read back %+v, wrote %+v", got, p)
			}
		})
	}
}

func TestDuplicatesHook(t *testing.T) {
	for _, e := range databases(t, "ent_dups") {
		t.Run(e.name, func(t *testing.T) {
			c, cx := e.client, ctx(t)
			c.User.Create().SetEmail("d@x").SaveX(cx)
			_, err := c.User.Create().SetEmail("d@x").Save(cx)
			var dup *uniq.DuplicateError
			if !errors.As(err, &dup) || !errors.Is(err, uniq.ErrDuplicate) {
				t.Fatalf("duplicate email: %v", err)
			}
			if e.name != "sqlite" && dup.Constraint == "" {
				t.Errorf("no constraint named: %v", err)
			}
			if !ent.IsConstraintError(err) {
				t.Errorf("ent's own check lost: %v", err)
			}
			// A foreign-key violation is not a duplicate.
			_, err = c.Payment.Create().SetOrderID(999).SetAttempt(1).SetCents(1).Save(cx)
			if err == nil || errors.Is(err, uniq.ErrDuplicate) {
				t.Errorf("foreign key: %v", err)
			}
		})
	}
}

func TestCreateOrGet(t *testing.T) {
	for _, e := range databases(t, "ent_idem") {
		t.Run(e.name, func(t *testing.T) {
			c, cx := e.client, ctx(t)
			e.statements.Store(0)
			first, created, err := c.Order.Create().SetRequestID("r1").SetCents(10).CreateOrGet(cx)
			if err != nil || !created {
				t.Fatalf("first: %v %v", created, err)
			}
			if n := e.statements.Load(); n != 1 {
				t.Errorf("new: %d statements, want 1", n)
			}
			e.statements.Store(0)
			again, created, err := c.Order.Create().SetRequestID("r1").SetCents(10).CreateOrGet(cx)
			if err != nil || created || again.ID != first.ID || again.No != first.No {
				t.Fatalf("retry: %v %v %+v (first %+v)", created, err, again, first)
			}
			if n := e.statements.Load(); n != 2 {
				t.Errorf("hit: %d statements, want 2", n)
			}
			// Another payload under the same key.
			other, _, err := c.Order.Create().SetRequestID("r1").SetCents(99).CreateOrGet(cx)
			var mm *idgent.MismatchError
			if !errors.As(err, &mm) || !errors.Is(err, idgent.ErrMismatch) || mm.Fields[0] != order.FieldCents || other.ID != first.ID {
				t.Errorf("mismatch: %v %+v", err, other)
			}
			// A conflict on another unique key, or on the primary key, is an error.
			_, _, err = c.Order.Create().SetRequestID("r2").SetCents(1).SetNo(first.No).CreateOrGet(cx)
			if !errors.Is(err, uniq.ErrDuplicate) {
				t.Errorf("number reused: %v", err)
			}
			_, _, err = c.Order.Create().SetID(first.ID).SetRequestID("r3").SetCents(1).CreateOrGet(cx)
			if !errors.Is(err, uniq.ErrDuplicate) {
				t.Errorf("primary key reused: %v", err)
			}
			if n := c.Order.Query().Where(order.RequestIDIn("r2", "r3")).CountX(cx); n != 0 {
				t.Errorf("%d rows for the failed keys", n)
			}
			// A two-column key.
			p1, created1, err1 := c.Payment.Create().SetOrderID(first.ID).SetAttempt(1).SetCents(10).CreateOrGet(cx)
			p2, created2, err2 := c.Payment.Create().SetOrderID(first.ID).SetAttempt(1).SetCents(10).CreateOrGet(cx)
			p3, created3, err3 := c.Payment.Create().SetOrderID(first.ID).SetAttempt(2).SetCents(10).CreateOrGet(cx)
			if err1 != nil || err2 != nil || err3 != nil || !created1 || created2 || !created3 || p1.ID != p2.ID || p3.ID == p1.ID {
				t.Errorf("payments: %v %v %v / %v %v %v", err1, err2, err3, created1, created2, created3)
			}
			// The key must be set.
			if _, _, err := c.Order.Create().SetCents(1).CreateOrGet(cx); err == nil {
				t.Error("no key: no error")
			}
		})
	}
}

func TestCreateOrGetInTransaction(t *testing.T) {
	for _, e := range databases(t, "ent_idem_tx") {
		t.Run(e.name, func(t *testing.T) {
			cx := ctx(t)
			tx, err := e.client.Tx(cx)
			if err != nil {
				t.Fatal(err)
			}
			a, _, err := tx.Order.Create().SetRequestID("tx1").SetCents(1).CreateOrGet(cx)
			if err != nil {
				t.Fatal(err)
			}
			b, created, err := tx.Order.Create().SetRequestID("tx1").SetCents(1).CreateOrGet(cx)
			if err != nil || created || b.ID != a.ID {
				t.Fatalf("hit in transaction: %v %v", created, err)
			}
			tx.Order.Create().SetRequestID("tx2").SetCents(2).SaveX(cx) // the transaction still works
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			if n := e.client.Order.Query().Where(order.RequestIDIn("tx1", "tx2")).CountX(cx); n != 2 {
				t.Fatalf("%d rows committed", n)
			}
		})
	}
}

func TestCreateOrGetConcurrent(t *testing.T) {
	for _, e := range databases(t, "ent_idem_conc") {
		t.Run(e.name, func(t *testing.T) {
			cx := ctx(t)
			const callers = 50
			ids := make([]int64, callers)
			created := make([]bool, callers)
			errs := make([]error, callers)
			start := make(chan struct{})
			var wg sync.WaitGroup
			for i := range callers {
				wg.Go(func() {
					<-start
					o, c, err := e.client.Order.Create().SetRequestID("same").SetCents(5).CreateOrGet(cx)
					created[i], errs[i] = c, err
					if o != nil {
						ids[i] = o.ID
					}
				})
			}
			close(start)
			wg.Wait()
			winners := 0
			for i := range callers {
				if errs[i] != nil {
					t.Fatalf("caller %d: %v", i, errs[i])
				}
				if ids[i] != ids[0] || ids[i] == 0 {
					t.Fatalf("caller %d: id %d, caller 0: %d", i, ids[i], ids[0])
				}
				if created[i] {
					winners++
				}
			}
			if n := e.client.Order.Query().Where(order.RequestID("same")).CountX(cx); n != 1 || winners != 1 {
				t.Fatalf("%d rows, %d creators", n, winners)
			}
		})
	}
}

func TestRepeatableRead(t *testing.T) {
	for _, e := range databases(t, "ent_idem_rr") {
		if e.name != "mysql" {
			continue
		}
		cx := ctx(t)
		tx, err := e.client.BeginTx(cx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead})
		if err != nil {
			t.Fatal(err)
		}
		tx.Order.Query().CountX(cx) // the snapshot
		other := e.client.Order.Create().SetRequestID("rr").SetCents(3).SaveX(cx)
		mine, created, err := tx.Order.Create().SetRequestID("rr").SetCents(3).CreateOrGet(cx)
		if err != nil || created || mine.ID != other.ID {
			t.Fatalf("repeatable read: %v %v %v", created, err, mine)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
}
