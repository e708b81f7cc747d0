package idgorm_test

import (
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/glebarez/sqlite"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/idgen/idgen/plugins/idgorm"
	"github.com/idgen/idgen/runtime/snowflake"
)

// Payment is the example's model: RequestKey is the client's idempotency key, made unique
// by a migration below rather than by a gorm tag.
type Payment struct {
	ID         int64  `gorm:"primaryKey" idgen:"snowflake"`
	RequestKey string `gorm:"size:64"`
	Cents      int64
}

// CreateOrGet refuses a key the database has no unique index on, and once a migration
// made one, turns the retry of a request into the row the first attempt created.
func ExampleCreateOrGet() {
	dir, err := os.MkdirTemp("", "idgorm-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	db, err := gorm.Open(sqlite.Open(filepath.Join(dir, "shop.db")), &gorm.Config{Logger: logger.Discard})
	if err != nil {
		log.Fatal(err)
	}
	if sqlDB, err := db.DB(); err == nil {
		defer sqlDB.Close()
	}
	gen, err := snowflake.New(snowflake.Classic(), 1, snowflake.Options{})
	if err != nil {
		log.Fatal(err)
	}
	if err := db.Use(idgorm.New(idgorm.Config{Source: gen})); err != nil {
		log.Fatal(err)
	}
	if err := db.AutoMigrate(&Payment{}); err != nil {
		log.Fatal(err)
	}
	key := idgorm.Key("RequestKey")

	_, err = idgorm.CreateOrGet(db, &Payment{RequestKey: "req-1", Cents: 500}, key)
	fmt.Println(errors.Is(err, idgorm.ErrNoUniqueKey))
	fmt.Println(err)

	if err := db.Exec("CREATE UNIQUE INDEX payments_request_key ON payments (request_key)").Error; err != nil {
		log.Fatal(err)
	}
	first := Payment{RequestKey: "req-1", Cents: 500}
	created, err := idgorm.CreateOrGet(db, &first, key)
	fmt.Println(created, err)
	retry := Payment{RequestKey: "req-1", Cents: 500}
	created, err = idgorm.CreateOrGet(db, &retry, key)
	fmt.Println(created, err, retry.ID == first.ID)
	// Output:
	// true
	// idgorm: model Payment, key (request_key): table "payments" has no unique index on exactly (request_key): create a unique index on exactly (request_key)
	// true <nil>
	// false <nil> true
}
