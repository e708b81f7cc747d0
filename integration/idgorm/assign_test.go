package idgorm_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/glebarez/sqlite"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/idgen/idgen"
	"github.com/idgen/idgen/golden/snowflakeid"
	"github.com/idgen/idgen/integration/internal/testdb"
	"github.com/idgen/idgen/plugins/idgorm"
	"github.com/idgen/idgen/runtime/segment"
	"github.com/idgen/idgen/runtime/sqldb"
)

func TestAssign(t *testing.T) {
	for _, e := range databases(t, "gorm_assign") {
		t.Run(e.name, func(t *testing.T) {
			db := e.db.WithContext(ctx(t))
			// One row.
			u := User{Email: "a@example.com", Name: "A"}
			if err := db.Create(&u).Error; err != nil {
				t.Fatal(err)
			}
			if u.ID.IsZero() {
				t.Fatal("no ID assigned")
			}
			if p, _ := u.ID.Parts(); p.Worker != 5 {
				t.Errorf("ID from worker %d, want the plugin's source (5)", p.Worker)
			}
			var got User
			if err := db.First(&got, "email = ?", "a@example.com").Error; err != nil || got.ID != u.ID {
				t.Fatalf("stored %v, %v; want %v", got.ID, err, u.ID)
			}
			// A caller's ID is kept.
			mine := User{ID: 12345, Email: "mine@example.com"}
			if err := db.Create(&mine).Error; err != nil || mine.ID != 12345 {
				t.Fatalf("kept %v, %v", mine.ID, err)
			}
			// A slice and an array: every row its own ID.
			users := []*User{{Email: "s1@x"}, {Email: "s2@x"}, {Email: "s3@x"}}
			if err := db.Create(users).Error; err != nil {
				t.Fatal(err)
			}
			arr := [2]Item{{SKU: "a"}, {SKU: "b"}}
			if err := db.Create(&arr).Error; err != nil {
				t.Fatal(err)
			}
			ids := []int64{int64(users[0].ID), int64(users[1].ID), int64(users[2].ID), arr[0].ID, arr[1].ID}
			if slices.Contains(ids, 0) || len(slices.Compact(slices.Sorted(slices.Values(ids)))) != len(ids) {
				t.Fatalf("ids %v", ids)
			}
			// CreateInBatches.
			batch := make([]Item, 95)
			for i := range batch {
				batch[i].SKU = "b"
			}
			if err := db.CreateInBatches(batch, 30).Error; err != nil {
				t.Fatal(err)
			}
			seen := map[int64]bool{}
			for _, it := range batch {
				if it.ID == 0 || seen[it.ID] {
					t.Fatalf("batch ID %d", it.ID)
				}
				seen[it.ID] = true
			}
			// Save of a new row, and FirstOrCreate.
			s := User{Email: "save@x"}
			if err := db.Save(&s).Error; err != nil || s.ID.IsZero() {
				t.Fatalf("Save: %v %v", s.ID, err)
			}
			var foc User
			if err := db.Where(User{Email: "foc@x"}).FirstOrCreate(&foc).Error; err != nil || foc.ID.IsZero() {
				t.Fatalf("FirstOrCreate: %v %v", foc.ID, err)
			}
			// Associations: the items get their own IDs and the order's.
			o := Order{RequestID: "assoc", Amount: 3, Items: []Item{{SKU: "x"}, {SKU: "y"}}}
			if err := db.Create(&o).Error; err != nil {
				t.Fatal(err)
			}
			if o.ID == 0 || o.No == "" || o.Items[0].ID == 0 || o.Items[1].ID == 0 || o.Items[0].OrderID == nil || *o.Items[0].OrderID != o.ID {
				t.Fatalf("order %+v", o)
			}
			// Maps.
			if err := db.Model(&Item{}).Create(map[string]any{"SKU": "m"}).Error; err != nil {
				t.Fatal(err)
			}
			if err := db.Model(&Item{}).Create(map[string]any{"SKU": "m3", "id": int64(777)}).Error; err != nil {
				t.Fatal(err)
			}
			var items []Item
			db.Where("sku IN ?", []string{"m", "m3"}).Order("sku").Find(&items)
			if len(items) != 2 || items[0].ID == 0 || items[1].ID != 777 {
				t.Fatalf("map-created items %+v", items)
			}
			// A slice of maps, for a model keyed by a generated type. (GORM itself cannot
			// create []map rows of a model with an auto-increment key where it reads the
			// key back with RETURNING.)
			if err := db.Model(&User{}).Create([]map[string]any{{"Email": "m1@x"}, {"Email": "m2@x", "Name": "n"}}).Error; err != nil {
				t.Fatal(err)
			}
			var mapped []User
			db.Where("email IN ?", []string{"m1@x", "m2@x"}).Find(&mapped)
			if len(mapped) != 2 || mapped[0].ID.IsZero() || mapped[1].ID.IsZero() || mapped[0].ID == mapped[1].ID {
				t.Fatalf("map-created users %+v", mapped)
			}
			// A model's own BeforeCreate calling Fill.
			n := Note{Text: "hi"}
			if err := db.Create(&n).Error; err != nil || n.ID.IsZero() || len(n.Ref) != 36 {
				t.Fatalf("note %+v %v", n, err)
			}
		})
	}
}

type badTag struct {
	ID  int64 `gorm:"primaryKey"`
	Ref int32 `idgen:"snowflake"`
}

type unknownTag struct {
	ID  int64 `gorm:"primaryKey"`
	Ref int64 `idgen:"ulid"`
}

func TestBadTags(t *testing.T) {
	db, err := gorm.Open(sqlite.Open(testdb.SQLitePath(t)), &gorm.Config{Logger: logger.Discard})
	if err != nil {
		t.Fatal(err)
	}
	db.Use(idgorm.New(idgorm.Config{}))
	db.AutoMigrate(&badTag{}, &unknownTag{})
	if err := db.Create(&badTag{}).Error; err == nil || !strings.Contains(err.Error(), `field badTag.Ref has tag idgen:"snowflake" but type int32`) {
		t.Errorf("int32 snowflake field: %v", err)
	}
	if err := db.Create(&unknownTag{}).Error; err == nil || !strings.Contains(err.Error(), `unknown tag idgen:"ulid"`) {
		t.Errorf("unknown tag: %v", err)
	}
	// Without a source anywhere, the error says so.
	if err := db.Create(&User{Email: "x"}).Error; err == nil || !strings.Contains(err.Error(), "no ID source") {
		t.Errorf("no source: %v", err)
	}
	var _ = snowflakeid.UserID(0)
}

// TestSegmentSource: the plugin takes a segment allocator as its source without special
// cases, and rows get dense IDs from the shared table.
func TestSegmentSource(t *testing.T) {
	db, err := gorm.Open(sqlite.Open(testdb.SQLitePath(t)), &gorm.Config{Logger: logger.Discard})
	if err != nil {
		t.Fatal(err)
	}
	sqlDB, _ := db.DB()
	store, err := segment.NewSQL(sqlDB, sqldb.SQLite, segment.SQLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := store.CreateTable(t.Context()); err != nil {
		t.Fatal(err)
	}
	alloc, err := segment.New(store, "users", segment.Options{Step: 10})
	if err != nil {
		t.Fatal(err)
	}
	db.Use(idgorm.New(idgorm.Config{Source: alloc}))
	db.AutoMigrate(&User{}, &Item{})
	users := []User{{Email: "s1"}, {Email: "s2"}, {Email: "s3"}}
	if err := db.Create(&users).Error; err != nil {
		t.Fatal(err)
	}
	item := Item{SKU: "x"}
	if err := db.Create(&item).Error; err != nil {
		t.Fatal(err)
	}
	if users[0].ID != 1 || users[1].ID != 2 || users[2].ID != 3 || item.ID != 4 {
		t.Fatalf("ids %v %v %v %v, want 1 2 3 4", users[0].ID, users[1].ID, users[2].ID, item.ID)
	}
	// A business number shows its ID's time, which a counter does not have: refused.
	var _ idgen.Timeless = alloc
	db.AutoMigrate(&Order{})
	if err := db.Create(&Order{RequestID: "segment"}).Error; !errors.Is(err, idgen.ErrTimeless) {
		t.Fatalf("an order number from a segment allocator: %v, want idgen.ErrTimeless", err)
	}
}
