package idgorm_test

import (
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/idgen/idgen/golden/mixed"
	"github.com/idgen/idgen/plugins/idgorm"
)

// The create paths of an application with generated types (issue 26): the models below
// and a test per path the plugin got wrong.

// Customer is keyed by a prefixed snowflake type, with a unique email.
type Customer struct {
	ID    mixed.CustomerID `gorm:"primaryKey"`
	Email string           `gorm:"size:191;uniqueIndex:idx_customers_email"`
	Name  string           `gorm:"size:64"`
}

// Ticket belongs to a customer: CustomerID is a foreign key, never a new ID.
type Ticket struct {
	ID         mixed.LedgerID `gorm:"primaryKey"`
	CustomerID mixed.CustomerID
	Customer   *Customer
	Title      string `gorm:"size:64"`
}

// Audit is embedded in Node: who created the row is a reference, not a new ID.
type Audit struct {
	CreatedBy mixed.CustomerID
}

// Node is a tree: a root's ParentID stays zero. Its PaymentNo is filled because it is
// marked; Shadow (gorm:"-") and Computed (gorm:"->", read-only) never reach the database.
type Node struct {
	ID       mixed.LedgerID `gorm:"primaryKey"`
	ParentID mixed.LedgerID
	Audit
	No       mixed.PaymentNo `gorm:"size:40;uniqueIndex:idx_nodes_no" idgen:"fill"`
	Plain    mixed.PaymentNo `gorm:"size:40"`
	Shadow   mixed.TraceID   `gorm:"-"`
	Computed mixed.LedgerID  `gorm:"->"`
}

// Purchase has nullable fields that CreateOrGet checks, and an instant.
type Purchase struct {
	ID         mixed.LedgerID    `gorm:"primaryKey"`
	RequestID  string            `gorm:"size:64;uniqueIndex:idx_purchases_request_id"`
	CustomerID *mixed.CustomerID // a guest purchase has none
	Coupon     *sql.NullString   `gorm:"size:32"`
	DueAt      time.Time
}

// Label has a plain int64 key tagged idgen:"snowflake", which GORM takes for an
// auto-increment column (it asks the database for it back, with RETURNING where it can).
type Label struct {
	ID   int64  `gorm:"primaryKey" idgen:"snowflake"`
	Name string `gorm:"size:64;uniqueIndex:idx_labels_name"`
	Note string `gorm:"size:64"`
}

// pathDatabases is databases with the models of this file migrated too.
func pathDatabases(t *testing.T, name string) []env {
	t.Helper()
	envs := databases(t, name)
	for _, e := range envs {
		if err := e.db.AutoMigrate(&Customer{}, &Ticket{}, &Node{}, &Purchase{}, &Label{}); err != nil {
			t.Fatalf("%s: migrate: %v", e.name, err)
		}
	}
	return envs
}

// TestFillWhichFields (issue 26, item 6): the plugin fills the primary key and the fields
// marked idgen:"fill", and nothing else: not a belongs-to foreign key, not a ParentID, not
// an embedded audit field, not an unmarked business number, not a field GORM does not
// write.
func TestFillWhichFields(t *testing.T) {
	for _, e := range pathDatabases(t, "gorm_fill_fields") {
		t.Run(e.name, func(t *testing.T) {
			db := e.db.WithContext(ctx(t))
			root := Node{}
			if err := db.Create(&root).Error; err != nil {
				t.Fatal(err)
			}
			if root.ID.IsZero() || root.No == "" {
				t.Errorf("the primary key %v and the marked number %q: want both filled", root.ID, root.No)
			}
			for name, zero := range map[string]bool{
				"ParentID (a reference)":        root.ParentID.IsZero(),
				"Audit.CreatedBy (a reference)": root.CreatedBy.IsZero(),
				"Plain (an unmarked number)":    root.Plain == "",
				`Shadow (gorm:"-")`:             root.Shadow.IsZero(),
				`Computed (gorm:"->")`:          root.Computed.IsZero(),
			} {
				if !zero {
					t.Errorf("%s was filled", name)
				}
			}
			child := Node{ParentID: root.ID, Audit: Audit{CreatedBy: 7}}
			if err := db.Create(&child).Error; err != nil || child.ParentID != root.ID || child.CreatedBy != 7 {
				t.Errorf("child: %v, parent %v (want %v), created by %v (want 7)", err, child.ParentID, root.ID, child.CreatedBy)
			}

			// A foreign key comes from its association, or the caller; never from the plugin.
			tk := Ticket{Title: "with customer", Customer: &Customer{Email: "fk@x"}}
			if err := db.Create(&tk).Error; err != nil {
				t.Fatal(err)
			}
			if tk.Customer.ID.IsZero() || tk.CustomerID != tk.Customer.ID || tk.ID.IsZero() {
				t.Errorf("ticket %v of customer %v, customer's ID %v", tk.ID, tk.CustomerID, tk.Customer.ID)
			}
			orphan := Ticket{Title: "no customer"}
			db.Create(&orphan) // refused by the foreign key constraint, or stored with none
			if !orphan.CustomerID.IsZero() {
				t.Errorf("the foreign key Ticket.CustomerID was filled with %v, which matches no customer", orphan.CustomerID)
			}
		})
	}
}

// badFill marks a foreign key, badShadow a field GORM does not write, badPlain a field
// that is not an ID.
type (
	badFill struct {
		ID         mixed.LedgerID   `gorm:"primaryKey"`
		CustomerID mixed.CustomerID `idgen:"fill"`
		Customer   Customer
	}
	badShadow struct {
		ID     mixed.LedgerID `gorm:"primaryKey"`
		Shadow mixed.TraceID  `gorm:"-" idgen:"fill"`
	}
	badPlain struct {
		ID    mixed.LedgerID `gorm:"primaryKey"`
		Count int64          `idgen:"fill"`
	}
)

// TestFillMarkRefused (issue 26, item 6): idgen:"fill" on a field the plugin must never
// fill is an error naming the field, not a silent fill.
func TestFillMarkRefused(t *testing.T) {
	for _, e := range pathDatabases(t, "gorm_fill_refused") {
		t.Run(e.name, func(t *testing.T) {
			db := e.db.WithContext(ctx(t))
			for _, tc := range []struct {
				model any
				want  string
			}{
				{&badFill{}, "badFill.CustomerID"},
				{&badShadow{}, "badShadow.Shadow"},
				{&badPlain{}, "badPlain.Count"},
			} {
				err := db.Create(tc.model).Error
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("%T: %v, want an error naming %s", tc.model, err, tc.want)
				}
			}
		})
	}
}

// TestCreateOrGetNilCheck (issue 26, item 2): checked fields that are nil pointers (a
// generated type, a sql.NullString) compare as NULL: a retry with the same nils is the
// same request, one that sets them is a mismatch.
func TestCreateOrGetNilCheck(t *testing.T) {
	for _, e := range pathDatabases(t, "gorm_nil_check") {
		t.Run(e.name, func(t *testing.T) {
			db := e.db.WithContext(ctx(t))
			key, check := idgorm.Key("RequestID"), idgorm.Check("CustomerID", "Coupon")
			first := Purchase{RequestID: "guest-1"}
			if created, err := idgorm.CreateOrGet(db, &first, key, check); err != nil || !created {
				t.Fatalf("first: %v %v", created, err)
			}
			retry := Purchase{RequestID: "guest-1"}
			if created, err := idgorm.CreateOrGet(db, &retry, key, check); err != nil || created || retry.ID != first.ID {
				t.Fatalf("retry with the same nils: %v %v, ID %v want %v", created, err, retry.ID, first.ID)
			}
			cus := mixed.CustomerID(42)
			set := Purchase{RequestID: "guest-1", CustomerID: &cus, Coupon: &sql.NullString{String: "X", Valid: true}}
			_, err := idgorm.CreateOrGet(db, &set, key, check)
			var mm *idgorm.MismatchError
			if !errors.As(err, &mm) || fmt.Sprint(mm.Fields) != "[CustomerID Coupon]" {
				t.Errorf("retry that sets them: %v, want a mismatch on CustomerID and Coupon", err)
			}
			// Stored set, retried nil.
			withCus := Purchase{RequestID: "member-1", CustomerID: &cus, Coupon: &sql.NullString{}}
			if _, err := idgorm.CreateOrGet(db, &withCus, key, check); err != nil {
				t.Fatal(err)
			}
			_, err = idgorm.CreateOrGet(db, &Purchase{RequestID: "member-1"}, key, check)
			if !errors.As(err, &mm) || fmt.Sprint(mm.Fields) != "[CustomerID]" {
				t.Errorf("nil retry of a stored customer: %v, want a mismatch on CustomerID (a NULL coupon is nil)", err)
			}
		})
	}
}

// TestCreateOrGetTimeCheck (issue 26, item 5): a checked instant is compared at the
// precision its column keeps (PostgreSQL microseconds, MariaDB DATETIME(3) milliseconds),
// so an identical retry of time.Now() is the same request; an instant that differs in
// what the column keeps is a mismatch.
func TestCreateOrGetTimeCheck(t *testing.T) {
	for _, e := range pathDatabases(t, "gorm_time_check") {
		t.Run(e.name, func(t *testing.T) {
			db := e.db.WithContext(ctx(t))
			key, check := idgorm.Key("RequestID"), idgorm.Check("DueAt")
			due := time.Date(2026, 12, 4, 10, 30, 16, 513578321, time.UTC)
			first := Purchase{RequestID: "due-1", DueAt: due}
			if _, err := idgorm.CreateOrGet(db, &first, key, check); err != nil {
				t.Fatal(err)
			}
			for i := range 2 { // the second call has the precision cached
				retry := Purchase{RequestID: "due-1", DueAt: due}
				if created, err := idgorm.CreateOrGet(db, &retry, key, check); err != nil || created || retry.ID != first.ID {
					t.Fatalf("identical retry %d: %v %v", i+1, created, err)
				}
			}
			local := Purchase{RequestID: "due-1", DueAt: due.In(time.FixedZone("UTC+8", 8*3600))}
			if _, err := idgorm.CreateOrGet(db, &local, key, check); err != nil {
				t.Errorf("the same instant in another zone: %v", err)
			}
			later := Purchase{RequestID: "due-1", DueAt: due.Add(10 * time.Millisecond)}
			if _, err := idgorm.CreateOrGet(db, &later, key, check); !errors.Is(err, idgorm.ErrMismatch) {
				t.Errorf("an instant 10 ms later: %v, want a mismatch", err)
			}
		})
	}
}

// TestMapCreateID (issue 26, items 3 and 4): a map create finds the ID under the field
// name or the column name, given as nil, a nil typed pointer or a zero value, fills it
// under that key, and never adds a second one.
func TestMapCreateID(t *testing.T) {
	for _, e := range pathDatabases(t, "gorm_map_id") {
		t.Run(e.name, func(t *testing.T) {
			db := e.db.WithContext(ctx(t))
			for i, m := range []map[string]any{
				{"id": (*mixed.CustomerID)(nil)},
				{"ID": (*mixed.CustomerID)(nil)},
				{"ID": mixed.CustomerID(0)},
				{"id": mixed.CustomerID(0)},
				{"ID": nil},
				{"id": int64(0)},
				{},
			} {
				email := fmt.Sprintf("map%d@x", i)
				if _, ok := m["ID"]; ok {
					m["Email"] = email
				} else {
					m["email"] = email
				}
				shown := fmt.Sprintf("%#v", m)
				if err := db.Model(&Customer{}).Create(m).Error; err != nil {
					t.Errorf("%s: %v", shown, err)
					continue
				}
				var got Customer
				if err := db.Where("email = ?", email).Take(&got).Error; err != nil || got.ID.IsZero() {
					t.Errorf("%s: stored ID %v (%v), want a new one", shown, got.ID, err)
				}
			}
			var n int64
			db.Model(&Customer{}).Where("id = 0").Count(&n)
			if n != 0 {
				t.Errorf("%d customers with ID 0", n)
			}
		})
	}
}

// TestSelectOmitID (issue 26, item 8): an insert that leaves the ID out (Select without
// it, Omit of it, db.Table with a map and no model) is refused with an error naming it,
// before anything is written; one that keeps it gets it filled.
func TestSelectOmitID(t *testing.T) {
	for _, e := range pathDatabases(t, "gorm_select_omit") {
		t.Run(e.name, func(t *testing.T) {
			db := e.db.WithContext(ctx(t))
			for name, create := range map[string]func(c *Customer) error{
				"Select without it":  func(c *Customer) error { return db.Select("Email").Create(c).Error },
				"Omit of it":         func(c *Customer) error { return db.Omit("ID").Create(c).Error },
				"Omit of its column": func(c *Customer) error { return db.Omit("id").Create(c).Error },
			} {
				c := Customer{Email: "left-out@x"}
				err := create(&c)
				if err == nil || !strings.Contains(err.Error(), "Customer.ID") || !c.ID.IsZero() {
					t.Errorf("%s: %v, ID %v; want an error naming Customer.ID and no ID", name, err, c.ID)
				}
			}
			var n int64
			db.Model(&Customer{}).Count(&n)
			if n != 0 {
				t.Errorf("%d customers stored, want none", n)
			}
			for name, create := range map[string]func(c *Customer) error{
				"Select with it":       func(c *Customer) error { return db.Select("ID", "Email").Create(c).Error },
				"Select of all":        func(c *Customer) error { return db.Select("*").Create(c).Error },
				"Omit of another":      func(c *Customer) error { return db.Omit("Name").Create(c).Error },
				"Omit of associations": func(c *Customer) error { return db.Omit(clause.Associations).Create(c).Error },
			} {
				c := Customer{Email: name + "@x"}
				if err := create(&c); err != nil || c.ID.IsZero() {
					t.Errorf("%s: %v, ID %v", name, err, c.ID)
					continue
				}
				var got Customer
				if err := db.Where("email = ?", c.Email).Take(&got).Error; err != nil || got.ID != c.ID {
					t.Errorf("%s: stored %v (%v), want %v", name, got.ID, err, c.ID)
				}
			}
			// No model: the table's primary key has no default, so the map must give it.
			err := db.Table("customers").Create(map[string]any{"email": "table@x"}).Error
			if err == nil || !strings.Contains(err.Error(), `"id"`) {
				t.Errorf("db.Table without the ID: %v, want an error naming column \"id\"", err)
			}
			db.Table("customers").Where("email = ?", "table@x").Count(&n)
			if n != 0 {
				t.Errorf("db.Table without the ID stored %d rows", n)
			}
			if err := db.Table("customers").Create(map[string]any{"id": 5, "email": "table5@x"}).Error; err != nil {
				t.Errorf("db.Table with the ID: %v", err)
			}
			// A table whose key the database fills needs none.
			if err := db.Table("items").Create(map[string]any{"sku": "auto"}).Error; err != nil {
				t.Errorf("db.Table on an auto-increment key: %v", err)
			}
		})
	}
}

// TestUpsertID (issue 26, item 7): after a clause.OnConflict create whose key held a row,
// the struct holds the ID stored in that row, for DoUpdates and DoNothing, single rows and
// slices mixing new and existing keys; new rows keep the IDs they were given.
func TestUpsertID(t *testing.T) {
	email := []clause.Column{{Name: "email"}}
	for _, e := range pathDatabases(t, "gorm_upsert") {
		t.Run(e.name, func(t *testing.T) {
			db := e.db.WithContext(ctx(t))
			first := Customer{Email: "up@x", Name: "a"}
			if err := db.Create(&first).Error; err != nil {
				t.Fatal(err)
			}
			stored := func(email string) mixed.CustomerID {
				t.Helper()
				var c Customer
				if err := db.Where("email = ?", email).Take(&c).Error; err != nil {
					t.Fatalf("%s: %v", email, err)
				}
				return c.ID
			}
			for _, tc := range []struct {
				name     string
				conflict clause.OnConflict
			}{
				{"DoUpdates", clause.OnConflict{Columns: email, DoUpdates: clause.AssignmentColumns([]string{"name"})}},
				{"DoNothing", clause.OnConflict{Columns: email, DoNothing: true}},
				{"UpdateAll", clause.OnConflict{Columns: email, UpdateAll: true}},
			} {
				one := Customer{Email: "up@x", Name: "b"}
				if err := db.Clauses(tc.conflict).Create(&one).Error; err != nil {
					t.Fatalf("%s: %v", tc.name, err)
				}
				if one.ID != first.ID {
					t.Errorf("%s, one row: ID %v, want the stored %v", tc.name, one.ID, first.ID)
				}
				fresh := tc.name + "@x"
				rows := []*Customer{{Email: fresh}, {Email: "up@x"}}
				if err := db.Clauses(tc.conflict).Create(rows).Error; err != nil {
					t.Fatalf("%s, slice: %v", tc.name, err)
				}
				if rows[1].ID != first.ID || rows[0].ID.IsZero() || rows[0].ID != stored(fresh) {
					t.Errorf("%s, slice: IDs %v %v; want %v (the new row's, stored) and %v (the existing row's)", tc.name, rows[0].ID, rows[1].ID, stored(fresh), first.ID)
				}
			}
			if got := stored("up@x"); got != first.ID {
				t.Errorf("the row's ID changed to %v", got)
			}
			// Without the key's columns the plugin cannot find the row: the ID is zero, never
			// one that was not stored (MySQL and MariaDB accept the statement; PostgreSQL and
			// SQLite DO NOTHING on any conflict).
			blind := Customer{Email: "up@x"}
			if err := db.Clauses(clause.OnConflict{DoNothing: true}).Create(&blind).Error; err != nil {
				t.Fatal(err)
			}
			if !blind.ID.IsZero() {
				t.Errorf("DoNothing without columns: ID %v was never stored, want zero", blind.ID)
			}

			// A plain int64 key, which GORM reads back itself where it can.
			label := Label{Name: "red"}
			if err := db.Create(&label).Error; err != nil {
				t.Fatal(err)
			}
			name := []clause.Column{{Name: "name"}}
			for _, conflict := range []clause.OnConflict{
				{Columns: name, DoUpdates: clause.AssignmentColumns([]string{"note"})},
				{Columns: name, DoNothing: true},
			} {
				labels := []Label{{Name: "red", Note: "again"}, {Name: fmt.Sprintf("new-%v", conflict.DoNothing)}}
				if err := db.Clauses(conflict).Create(&labels).Error; err != nil {
					t.Fatalf("labels, DoNothing %v: %v", conflict.DoNothing, err)
				}
				var fresh Label
				db.Where("name = ?", labels[1].Name).Take(&fresh)
				if labels[0].ID != label.ID || labels[1].ID == 0 || labels[1].ID != fresh.ID {
					t.Errorf("labels, DoNothing %v: IDs %d %d, want %d (the existing row's) and %d (stored)",
						conflict.DoNothing, labels[0].ID, labels[1].ID, label.ID, fresh.ID)
				}
			}
		})
	}
}

// Shelf and Book are many-to-many, and a Book belongs to the Customer who wrote it: one
// Create saves them all.
type (
	Shelf struct {
		ID    mixed.LedgerID `gorm:"primaryKey"`
		Name  string         `gorm:"size:64"`
		Books []*Book        `gorm:"many2many:shelf_books"`
	}
	Book struct {
		ID       mixed.LedgerID `gorm:"primaryKey"`
		Title    string         `gorm:"size:64"`
		AuthorID mixed.CustomerID
		Author   *Customer
	}
)

// TestCreatePaths: the create paths TestAssign does not take, each with IDs where GORM
// stores them: a pointer to a slice of pointers, belongs-to and many2many in one Create,
// savepoints (a nested transaction rolled back keeps none of its rows), a soft-deleted
// row's key created again, Save of a stored row (an update: its ID kept).
func TestCreatePaths(t *testing.T) {
	for _, e := range pathDatabases(t, "gorm_create_paths") {
		t.Run(e.name, func(t *testing.T) {
			db := e.db.WithContext(ctx(t))
			if err := db.AutoMigrate(&Shelf{}, &Book{}); err != nil {
				t.Fatal(err)
			}
			// &[]*T.
			rows := []*Customer{{Email: "p1@x"}, {Email: "p2@x"}}
			if err := db.Create(&rows).Error; err != nil || rows[0].ID.IsZero() || rows[1].ID.IsZero() || rows[0].ID == rows[1].ID {
				t.Fatalf("&[]*Customer: %v, IDs %v %v", err, rows[0].ID, rows[1].ID)
			}
			// Belongs-to and many2many: the author, the books and the join rows.
			shelf := Shelf{Name: "new", Books: []*Book{
				{Title: "a", Author: &Customer{Email: "author@x"}},
				{Title: "b", AuthorID: rows[0].ID},
			}}
			if err := db.Create(&shelf).Error; err != nil {
				t.Fatal(err)
			}
			a, b := shelf.Books[0], shelf.Books[1]
			if shelf.ID.IsZero() || a.ID.IsZero() || b.ID.IsZero() || a.Author.ID.IsZero() || a.AuthorID != a.Author.ID || b.AuthorID != rows[0].ID {
				t.Fatalf("shelf %v, books %+v %+v", shelf.ID, a, b)
			}
			var loaded Shelf
			if err := db.Preload("Books.Author").Take(&loaded, "id = ?", shelf.ID).Error; err != nil || len(loaded.Books) != 2 {
				t.Fatalf("read back: %v, %d books", err, len(loaded.Books))
			}
			// Savepoints: the inner transaction's row is rolled back, the outer one's kept.
			var outer, inner Customer
			err := db.Transaction(func(tx *gorm.DB) error {
				outer = Customer{Email: "outer@x"}
				if err := tx.Create(&outer).Error; err != nil {
					return err
				}
				tx.Transaction(func(tx2 *gorm.DB) error {
					inner = Customer{Email: "inner@x"}
					if err := tx2.Create(&inner).Error; err != nil {
						return err
					}
					return errors.New("roll the savepoint back")
				})
				return nil
			})
			if err != nil || outer.ID.IsZero() || inner.ID.IsZero() {
				t.Fatalf("transaction: %v, IDs %v %v", err, outer.ID, inner.ID)
			}
			var n int64
			db.Model(&Customer{}).Where("id IN ?", []mixed.CustomerID{outer.ID, inner.ID}).Count(&n)
			if n != 1 {
				t.Errorf("%d of the outer and inner rows stored, want the outer one", n)
			}
			// Soft delete, then the same key created again: a new row, a new ID.
			first := Order{RequestID: "soft", Amount: 1}
			if err := db.Create(&first).Error; err != nil {
				t.Fatal(err)
			}
			db.Delete(&first)
			again := Order{RequestID: "soft-again", Amount: 1}
			if err := db.Create(&again).Error; err != nil || again.ID == 0 || again.ID == first.ID || again.No == first.No {
				t.Errorf("created after a soft delete: %v, ID %d No %s (first %d %s)", err, again.ID, again.No, first.ID, first.No)
			}
			// Save of a stored row updates it and keeps its ID.
			stored := rows[1].ID
			rows[1].Name = "renamed"
			if err := db.Save(rows[1]).Error; err != nil || rows[1].ID != stored {
				t.Errorf("Save: %v, ID %v want %v", err, rows[1].ID, stored)
			}
		})
	}
}

// Checked has a field of every kind CreateOrGet can check.
type Checked struct {
	ID       mixed.LedgerID    `gorm:"primaryKey"`
	Key      string            `gorm:"size:32;uniqueIndex:idx_checked_key"`
	Int      int64             `gorm:"column:n"`
	Text     string            `gorm:"size:32"`
	Bytes    []byte            `gorm:"size:16"`
	Typed    mixed.CustomerID  // a generated type
	TypedPtr *mixed.CustomerID // nullable
	Number   mixed.PaymentNo   `gorm:"size:40"`
	Null     sql.NullString    `gorm:"size:32"`
	At       time.Time
	AtPtr    *time.Time
}

// TestCreateOrGetCheckTypes: CreateOrGet's Check on every kind of field: an identical
// retry is a hit, a retry that changes the field is a mismatch naming it.
func TestCreateOrGetCheckTypes(t *testing.T) {
	at := time.Date(2026, 12, 4, 10, 30, 16, 513578321, time.UTC)
	cus, other := mixed.CustomerID(77), mixed.CustomerID(78)
	later := at.Add(time.Hour)
	for _, e := range pathDatabases(t, "gorm_check_types") {
		t.Run(e.name, func(t *testing.T) {
			db := e.db.WithContext(ctx(t))
			if err := db.AutoMigrate(&Checked{}); err != nil {
				t.Fatal(err)
			}
			no1, err1 := mixed.NewPaymentNoFrom(t.Context(), e.gen)
			no2, err2 := mixed.NewPaymentNoFrom(t.Context(), e.gen)
			if err := errors.Join(err1, err2); err != nil {
				t.Fatal(err)
			}
			base := func() Checked {
				return Checked{Key: "k", Int: 1, Text: "t", Bytes: []byte{1, 2}, Typed: 5, TypedPtr: &cus,
					Number: no1, Null: sql.NullString{String: "n", Valid: true}, At: at, AtPtr: &at}
			}
			changes := map[string]func(c *Checked){
				"Int":      func(c *Checked) { c.Int = 2 },
				"Text":     func(c *Checked) { c.Text = "u" },
				"Bytes":    func(c *Checked) { c.Bytes = []byte{1, 3} },
				"Typed":    func(c *Checked) { c.Typed = 6 },
				"TypedPtr": func(c *Checked) { c.TypedPtr = &other },
				"Number":   func(c *Checked) { c.Number = no2 },
				"Null":     func(c *Checked) { c.Null = sql.NullString{} },
				"At":       func(c *Checked) { c.At = later },
				"AtPtr":    func(c *Checked) { c.AtPtr = nil },
			}
			var fields []string
			for f := range changes {
				fields = append(fields, f)
			}
			key, check := idgorm.Key("Key"), idgorm.Check(fields...)
			first := base()
			if _, err := idgorm.CreateOrGet(db, &first, key, check); err != nil {
				t.Fatal(err)
			}
			same := base()
			if created, err := idgorm.CreateOrGet(db, &same, key, check); err != nil || created || same.ID != first.ID {
				t.Fatalf("identical retry: %v %v", created, err)
			}
			for field, change := range changes {
				c := base()
				change(&c)
				_, err := idgorm.CreateOrGet(db, &c, key, check)
				var mm *idgorm.MismatchError
				if !errors.As(err, &mm) || fmt.Sprint(mm.Fields) != "["+field+"]" {
					t.Errorf("%s changed: %v, want a mismatch on %s alone", field, err, field)
				}
			}
		})
	}
}
