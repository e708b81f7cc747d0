package idgorm_test

import (
	"testing"
	"time"

	"github.com/glebarez/sqlite"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/idgen/idgen/integration/internal/testdb"
	"github.com/idgen/idgen/plugins/idgorm"
	"github.com/idgen/idgen/runtime/snowflake"
)

// BenchmarkCreateInBatches inserts 1,000 rows a call on SQLite: IDs filled by the plugin,
// against the same rows with IDs set by hand and no plugin. The target: the plugin at most
// 3% slower.
func BenchmarkCreateInBatches(b *testing.B) {
	gen, err := snowflake.New(snowflake.Classic(), 1, snowflake.Options{Exhaust: snowflake.ExhaustBorrow, MaxDrift: time.Hour})
	if err != nil {
		b.Fatal(err)
	}
	open := func(b *testing.B, plugin bool) *gorm.DB {
		db, err := gorm.Open(sqlite.Open(testdb.SQLitePath(b)+"?_pragma=journal_mode(WAL)&_pragma=synchronous(OFF)"), &gorm.Config{Logger: logger.Discard, SkipDefaultTransaction: true})
		if err != nil {
			b.Fatal(err)
		}
		if plugin {
			db.Use(idgorm.New(idgorm.Config{Source: gen}))
		}
		if err := db.AutoMigrate(&Item{}); err != nil {
			b.Fatal(err)
		}
		return db
	}
	rows := make([]Item, 1000)
	b.Run("plugin", func(b *testing.B) {
		db := open(b, true)
		for b.Loop() {
			for i := range rows {
				rows[i] = Item{SKU: "sku"}
			}
			if err := db.CreateInBatches(rows, 1000).Error; err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("by-hand", func(b *testing.B) {
		db := open(b, false)
		for b.Loop() {
			for i := range rows {
				id, _ := gen.Next()
				rows[i] = Item{ID: int64(id), SKU: "sku"}
			}
			if err := db.CreateInBatches(rows, 1000).Error; err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkFill measures the plugin's own work for 1,000 rows, without the database: what
// CreateInBatches pays on top of the insert.
func BenchmarkFill(b *testing.B) {
	gen, err := snowflake.New(snowflake.Classic(), 1, snowflake.Options{Exhaust: snowflake.ExhaustBorrow, MaxDrift: time.Hour})
	if err != nil {
		b.Fatal(err)
	}
	db, err := gorm.Open(sqlite.Open(testdb.SQLitePath(b)), &gorm.Config{Logger: logger.Discard})
	if err != nil {
		b.Fatal(err)
	}
	db.Use(idgorm.New(idgorm.Config{Source: gen}))
	rows := make([]Item, 1000)
	b.ReportAllocs()
	for b.Loop() {
		clear(rows)
		if err := idgorm.Fill(db, &rows); err != nil {
			b.Fatal(err)
		}
	}
}
