package idgorm_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/glebarez/sqlite"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/idgen/idgen"
	"github.com/idgen/idgen/examples/quickstart/models"
	"github.com/idgen/idgen/plugins/idgorm"
	"github.com/idgen/idgen/runtime/snowflake"
)

// The plugin fills the zero typed IDs of every create, here a UserID and an OrderNo made by
// idgen-gen, from the source set with idgen.SetDefault; CreateOrGet makes the create of an
// order idempotent on its request key, so a retried request gets the first order back.
func ExampleNew() {
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

	gen, err := snowflake.New(snowflake.Classic(), 7, snowflake.Options{})
	if err != nil {
		log.Fatal(err)
	}
	idgen.SetDefault(gen) // the plugin's source when Config.Source is nil
	defer idgen.SetDefault(nil)
	if err := db.Use(idgorm.New(idgorm.Config{})); err != nil {
		log.Fatal(err)
	}
	if err := db.AutoMigrate(&models.User{}, &models.Order{}); err != nil {
		log.Fatal(err)
	}

	ada := models.User{Name: "Ada"}
	if err := db.Create(&ada).Error; err != nil {
		log.Fatal(err)
	}
	parts, _ := ada.ID.Parts()
	fmt.Println(strings.HasPrefix(ada.ID.String(), "usr_"), "worker", parts.Worker)

	var first models.Order
	for attempt := 1; attempt <= 2; attempt++ {
		order := models.Order{RequestID: "req-2f9c1e", UserID: ada.ID, Cents: 4200}
		created, err := idgorm.CreateOrGet(db, &order, idgorm.Key("RequestID"), idgorm.Check("UserID", "Cents"))
		if err != nil {
			log.Fatal(err)
		}
		if created {
			first = order
		}
		fmt.Println("attempt", attempt, "created:", created, "same order:", order.No == first.No)
	}
	var n int64
	db.Model(&models.Order{}).Count(&n)
	fmt.Println("orders:", n)
	// Output:
	// true worker 7
	// attempt 1 created: true same order: true
	// attempt 2 created: false same order: true
	// orders: 1
}
