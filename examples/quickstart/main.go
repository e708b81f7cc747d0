// Command quickstart shows idgen end to end on an embedded SQLite database, no server
// needed: typed IDs generated from annotations, the GORM plugin assigning them, a retried
// "create order" request that still yields one order, and an ID decoded back into when and
// where it was made.
//
//	go run ./examples/quickstart
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/glebarez/sqlite"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/idgen/idgen"
	"github.com/idgen/idgen/examples/quickstart/models"
	"github.com/idgen/idgen/plugins/idgorm"
	"github.com/idgen/idgen/runtime/snowflake"
	"github.com/idgen/idgen/runtime/worker"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("quickstart: ")
	dir, err := os.MkdirTemp("", "idgen-quickstart-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := run(os.Stdout, filepath.Join(dir, "shop.db")); err != nil {
		log.Fatal(err)
	}
}

func run(w io.Writer, path string) error {
	ctx := context.Background()

	// 1. One generator per process, for the worker ID this instance runs as.
	layout := snowflake.Classic()
	src, err := worker.Static(1, layout.MaxWorker()) // in production: worker.Env or worker.StatefulSet
	if err != nil {
		return err
	}
	workerID, _ := src.WorkerID(ctx)
	gen, err := snowflake.New(layout, workerID, snowflake.Options{})
	if err != nil {
		return err
	}
	idgen.SetDefault(gen)
	fmt.Fprintf(w, "generator: worker %d, layout %v\n", workerID, layout)

	// 2. GORM on an embedded SQLite file, with the idgen plugin.
	db, err := gorm.Open(sqlite.Open(path), &gorm.Config{Logger: logger.Discard})
	if err != nil {
		return err
	}
	if sqlDB, err := db.DB(); err == nil {
		defer sqlDB.Close()
	}
	if err := db.Use(idgorm.New(idgorm.Config{})); err != nil {
		return err
	}
	if err := db.AutoMigrate(&models.User{}, &models.Order{}); err != nil {
		return err
	}
	fmt.Fprintf(w, "database:  SQLite at %s\n\n", filepath.Base(path))

	// 3. Create a user: the plugin fills the zero ID.
	ada := models.User{Name: "Ada"}
	if err := db.Create(&ada).Error; err != nil {
		return err
	}
	fmt.Fprintf(w, "created user %s with ID %s (BIGINT %d in the table)\n\n", ada.Name, ada.ID, int64(ada.ID))

	// 4. A "create order" request, retried by the client after a timeout. The request
	// key makes the create idempotent: the second attempt gets the first order back.
	const requestKey = "req-2f9c1e"
	fmt.Fprintf(w, "POST /orders  Idempotency-Key: %s  (42.00 for %s)\n", requestKey, ada.ID)
	var first models.Order
	for attempt := 1; attempt <= 2; attempt++ {
		order := models.Order{RequestID: requestKey, UserID: ada.ID, Cents: 4200}
		created, err := idgorm.CreateOrGet(db, &order, idgorm.Key("RequestID"), idgorm.Check("UserID", "Cents"))
		if err != nil {
			return err
		}
		if created {
			first = order
			fmt.Fprintf(w, "  attempt %d: created order %s\n", attempt, order.No)
		} else {
			fmt.Fprintf(w, "  attempt %d: the key was seen before: returned order %s, nothing inserted\n", attempt, order.No)
			if order.No != first.No {
				return fmt.Errorf("the retry got order %s, not %s", order.No, first.No)
			}
		}
	}
	var count int64
	if err := db.Model(&models.Order{}).Where("request_id = ?", requestKey).Count(&count).Error; err != nil {
		return err
	}
	fmt.Fprintf(w, "orders with that key in the database: %d\n\n", count)

	// 5. Support asks: when and where was this order made?
	if _, err := models.ParseOrderNo(string(first.No)); err != nil {
		return err
	}
	p, err := first.No.Parts()
	if err != nil {
		return err
	}
	made := first.No.Time().In(time.FixedZone("Asia/Shanghai", 8*3600))
	fmt.Fprintf(w, "order %s decodes to:\n", first.No)
	fmt.Fprintf(w, "  made     %s\n", made.Format("2006-01-02 15:04:05.000 -07:00"))
	fmt.Fprintf(w, "  worker   %d\n", p.Worker)
	fmt.Fprintf(w, "  sequence %d\n", p.Seq)
	mistyped := []byte(first.No)
	mistyped[10] = '0' + (mistyped[10]-'0'+1)%10
	if _, err := models.ParseOrderNo(string(mistyped)); err != nil {
		fmt.Fprintf(w, "  a mistyped %s is refused: %v\n", mistyped, err)
	}
	return nil
}
