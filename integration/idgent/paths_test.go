package idgent_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/idgen/idgen/examples/ent/ent"
	"github.com/idgen/idgen/examples/ent/ent/order"
	"github.com/idgen/idgen/examples/ent/ent/user"
	"github.com/idgen/idgen/plugins/idgent"
	"github.com/idgen/idgen/runtime/uniq"
)

// TestCreateBulkTypedID (issue 26, item 1): a bulk create, and a bulk upsert, of a schema
// whose ID is a generated type returns its nodes with the IDs stored.
func TestCreateBulkTypedID(t *testing.T) {
	for _, e := range databases(t, "ent_bulk_typed") {
		t.Run(e.name, func(t *testing.T) {
			c, cx := e.client, ctx(t)
			users, err := c.User.CreateBulk(c.User.Create().SetEmail("t1@x"), c.User.Create().SetEmail("t2@x")).Save(cx)
			if err != nil {
				t.Fatalf("CreateBulk: %v", err)
			}
			if len(users) != 2 || users[0].ID.IsZero() || users[1].ID.IsZero() || users[0].ID == users[1].ID {
				t.Fatalf("CreateBulk returned %+v", users)
			}
			for _, u := range users {
				if got, err := c.User.Get(cx, u.ID); err != nil || got.Email != u.Email {
					t.Errorf("user %v: %+v, %v", u.ID, got, err)
				}
			}
			err = c.User.CreateBulk(c.User.Create().SetEmail("t1@x").SetName("again"), c.User.Create().SetEmail("t3@x")).
				OnConflictColumns(user.FieldEmail).UpdateNewValues().Exec(cx)
			if err != nil {
				t.Fatalf("bulk upsert: %v", err)
			}
			if n := c.User.Query().CountX(cx); n != 3 {
				t.Errorf("%d users after the upsert, want 3", n)
			}
		})
	}
}

// TestCreateOrGetNillableCheck (issue 26, item 2): an Optional().Nillable() typed field in
// Check, stored NULL, compares as NULL: the same retry is a hit, one that sets it is a
// mismatch.
func TestCreateOrGetNillableCheck(t *testing.T) {
	for _, e := range databases(t, "ent_nil_check") {
		t.Run(e.name, func(t *testing.T) {
			c, cx := e.client, ctx(t)
			guest, _, err := c.Order.Create().SetRequestID("guest").SetCents(5).CreateOrGet(cx)
			if err != nil || guest.UserID != nil {
				t.Fatalf("first: %v, user %v", err, guest.UserID)
			}
			again, created, err := c.Order.Create().SetRequestID("guest").SetCents(5).SetNillableUserID(nil).CreateOrGet(cx)
			if err != nil || created || again.ID != guest.ID {
				t.Fatalf("the same retry: %v %v", created, err)
			}
			u := c.User.Create().SetEmail("buyer@x").SaveX(cx)
			_, _, err = c.Order.Create().SetRequestID("guest").SetCents(5).SetUserID(u.ID).CreateOrGet(cx)
			var mm *idgent.MismatchError
			if !errors.As(err, &mm) || fmt.Sprint(mm.Fields) != "[user_id]" {
				t.Errorf("a retry that sets the user: %v, want a mismatch on user_id", err)
			}
			member, _, err := c.Order.Create().SetRequestID("member").SetCents(5).SetUserID(u.ID).CreateOrGet(cx)
			if err != nil || member.UserID == nil || *member.UserID != u.ID {
				t.Fatalf("member: %v %+v", err, member)
			}
			if _, _, err := c.Order.Create().SetRequestID("member").SetCents(5).SetUserID(u.ID).CreateOrGet(cx); err != nil {
				t.Errorf("the same member retry: %v", err)
			}
		})
	}
}

// TestCreateOrGetTimeCheck (issue 26, item 5): a checked instant is compared at the
// precision of its column (ent's defaults: microseconds on PostgreSQL, seconds in MySQL's
// and MariaDB's timestamp), so an identical retry of a time with nanoseconds is a hit.
func TestCreateOrGetTimeCheck(t *testing.T) {
	for _, e := range databases(t, "ent_time_check") {
		t.Run(e.name, func(t *testing.T) {
			c, cx := e.client, ctx(t)
			due := time.Date(2026, 12, 4, 10, 30, 16, 513578321, time.UTC)
			first, _, err := c.Order.Create().SetRequestID("due").SetCents(5).SetDueAt(due).CreateOrGet(cx)
			if err != nil {
				t.Fatal(err)
			}
			again, created, err := c.Order.Create().SetRequestID("due").SetCents(5).SetDueAt(due).CreateOrGet(cx)
			if err != nil || created || again.ID != first.ID {
				t.Fatalf("identical retry: %v %v", created, err)
			}
			_, _, err = c.Order.Create().SetRequestID("due").SetCents(5).SetDueAt(due.Add(2 * time.Second)).CreateOrGet(cx)
			if !errors.Is(err, idgent.ErrMismatch) {
				t.Errorf("two seconds later: %v, want a mismatch", err)
			}
		})
	}
}

// TestDuplicateConstraintName (issue 26, item 9): a duplicate names its unique index on
// every database, SQLite included (whose message names only the columns).
func TestDuplicateConstraintName(t *testing.T) {
	for _, e := range databases(t, "ent_dup_name") {
		t.Run(e.name, func(t *testing.T) {
			c, cx := e.client, ctx(t)
			// ent's migration names a unique column's index <table>_<column>_key on SQLite and
			// PostgreSQL; MySQL and MariaDB name it after the column.
			email, no := "users_email_key", "orders_no_key"
			if e.name == "mysql" {
				email, no = "email", "no"
			}
			c.User.Create().SetEmail("n@x").SaveX(cx)
			_, err := c.User.Create().SetEmail("n@x").Save(cx)
			if dup, ok := errors.AsType[*uniq.DuplicateError](err); !ok || dup.Constraint != email {
				t.Errorf("duplicate email: %v, want a *uniq.DuplicateError naming %q", err, email)
			}
			o := c.Order.Create().SetRequestID("named").SetCents(1).SaveX(cx)
			_, _, err = c.Order.Create().SetRequestID("named-2").SetCents(1).SetNo(o.No).CreateOrGet(cx)
			if dup, ok := errors.AsType[*uniq.DuplicateError](err); !ok || dup.Constraint != no {
				t.Errorf("CreateOrGet on a taken number: %v, want a *uniq.DuplicateError naming %q", err, no)
			}
		})
	}
}

// TestCreatePaths: the create paths of an ent application beside CreateOrGet, with IDs
// where ent stores them: edges set in one create, MapCreateBulk, a single upsert of a
// TypedID and an int64 ID (the stored ID back, new row or hit), a transaction rolled back
// and one committed.
func TestCreatePaths(t *testing.T) {
	for _, e := range databases(t, "ent_create_paths") {
		t.Run(e.name, func(t *testing.T) {
			c, cx := e.client, ctx(t)
			// Edges: a user with two orders, then an order of that user.
			o1 := c.Order.Create().SetRequestID("e1").SetCents(1).SaveX(cx)
			o2 := c.Order.Create().SetRequestID("e2").SetCents(2).SaveX(cx)
			u := c.User.Create().SetEmail("edges@x").AddOrders(o1, o2).SaveX(cx)
			o3 := c.Order.Create().SetRequestID("e3").SetCents(3).SetUser(u).SaveX(cx)
			if n := u.QueryOrders().CountX(cx); n != 3 || o3.UserID == nil || *o3.UserID != u.ID {
				t.Errorf("user %v has %d orders (want 3), order 3's user %v", u.ID, n, o3.UserID)
			}
			// MapCreateBulk.
			emails := []string{"m1@x", "m2@x", "m3@x"}
			users := c.User.MapCreateBulk(emails, func(b *ent.UserCreate, i int) { b.SetEmail(emails[i]) }).SaveX(cx)
			for i, mu := range users {
				if got, err := c.User.Get(cx, mu.ID); err != nil || got.Email != emails[i] {
					t.Errorf("MapCreateBulk row %d: %v %+v", i, err, got)
				}
			}
			// Single upserts: a new row, then a hit; the ID back is the stored one. On MySQL
			// a hit's ID is ent's reading of LAST_INSERT_ID(), which an update of a table
			// without AUTO_INCREMENT (a TypedID's) leaves at 0: zero, never a wrong ID.
			for i, email := range []string{"up@x", "up@x"} {
				id, err := c.User.Create().SetEmail(email).SetName("n").OnConflictColumns(user.FieldEmail).UpdateNewValues().ID(cx)
				stored := c.User.Query().Where(user.Email(email)).OnlyX(cx)
				want := stored.ID
				if e.name == "mysql" && i == 1 {
					want = 0
				}
				if err != nil || id != want {
					t.Errorf("user upsert %d: %v, ID %v, want %v (stored %v)", i, err, id, want, stored.ID)
				}
			}
			for _, cents := range []int64{1, 2} {
				id, err := c.Order.Create().SetRequestID("up").SetCents(cents).OnConflictColumns(order.FieldRequestID).UpdateNewValues().ID(cx)
				stored := c.Order.Query().Where(order.RequestID("up")).OnlyX(cx)
				if err != nil || id != stored.ID || stored.Cents != cents {
					t.Errorf("order upsert: %v, ID %v, stored %v (cents %d)", err, id, stored.ID, stored.Cents)
				}
			}
			// Transactions: rolled back leaves nothing, committed keeps the row and its ID.
			tx, err := c.Tx(cx)
			if err != nil {
				t.Fatal(err)
			}
			gone := tx.User.Create().SetEmail("rolled@x").SaveX(cx)
			if err := tx.Rollback(); err != nil {
				t.Fatal(err)
			}
			if _, err := c.User.Get(cx, gone.ID); !ent.IsNotFound(err) {
				t.Errorf("rolled-back user: %v", err)
			}
			tx, err = c.Tx(cx)
			if err != nil {
				t.Fatal(err)
			}
			kept := tx.User.Create().SetEmail("committed@x").SaveX(cx)
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			if got, err := c.User.Get(cx, kept.ID); err != nil || got.Email != "committed@x" {
				t.Errorf("committed user: %v %+v", err, got)
			}
		})
	}
}
