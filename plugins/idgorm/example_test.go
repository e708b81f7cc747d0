package idgorm_test

import (
	"errors"
	"fmt"

	"gorm.io/gorm"
	"gorm.io/gorm/logger"
	"gorm.io/gorm/utils/tests"

	"github.com/idgen/idgen/plugins/idgorm"
	"github.com/idgen/idgen/runtime/snowflake"
)

// Payment is the examples' model: its int64 key is tagged for a snowflake ID, its Ref
// for a UUIDv7 string.
type Payment struct {
	ID    int64  `gorm:"primaryKey" idgen:"snowflake"`
	Ref   string `idgen:"uuid7"`
	Cents int64
}

// The plugin fills the zero ID fields of every create. Here GORM runs dry (it builds the
// INSERT but sends nothing, on gorm's own dummy dialector), so the example needs no
// database; with one it is gorm.Open(postgres.Open(dsn)) or any other dialector.
func ExampleNew() {
	db, err := gorm.Open(tests.DummyDialector{}, &gorm.Config{DryRun: true, Logger: logger.Discard})
	if err != nil {
		panic(err)
	}
	gen, err := snowflake.New(snowflake.Classic(), 7, snowflake.Options{})
	if err != nil {
		panic(err)
	}
	if err := db.Use(idgorm.New(idgorm.Config{Source: gen})); err != nil {
		panic(err)
	}
	p := Payment{Cents: 500}
	if err := db.Create(&p).Error; err != nil {
		panic(err)
	}
	parts, _ := snowflake.Classic().Decode(snowflake.ID(p.ID))
	fmt.Println("id from worker", parts.Worker, "ref", len(p.Ref), "characters")
	kept := Payment{ID: 42, Cents: 700} // a value the caller set is kept
	if err := db.Create(&kept).Error; err != nil {
		panic(err)
	}
	fmt.Println("id", kept.ID)
	// Output:
	// id from worker 7 ref 36 characters
	// id 42
}

// shop is the program's *gorm.DB, opened with its database's dialector
// (gorm.Open(postgres.Open(dsn)), say) and the plugin installed.
var shop *gorm.DB

// Order is the model of the CreateOrGet example: RequestKey is the client's idempotency
// key, under a unique index of exactly that column.
type Order struct {
	ID         int64  `gorm:"primaryKey" idgen:"snowflake"`
	RequestKey string `gorm:"size:64;uniqueIndex"`
	Cents      int64
}

// CreateOrGet turns the retry of a request into the row the first attempt created, and
// refuses a retry with other values in the checked fields. It needs a database, so it is
// compiled, not run.
func ExampleCreateOrGet() {
	o := Order{RequestKey: "req-2f9c1e", Cents: 4200}
	created, err := idgorm.CreateOrGet(shop, &o, idgorm.Key("RequestKey"), idgorm.Check("Cents"))
	if errors.Is(err, idgorm.ErrMismatch) {
		fmt.Println("req-2f9c1e was used for another amount")
		return
	}
	if err != nil {
		panic(err)
	}
	fmt.Println("created:", created, "id:", o.ID) // created: false, and the first ID, on a retry
}
