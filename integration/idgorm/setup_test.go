package idgorm_test

import (
	"context"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/glebarez/sqlite"
	"gorm.io/driver/mysql"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/idgen/idgen/golden/number"
	"github.com/idgen/idgen/golden/snowflakeid"
	"github.com/idgen/idgen/integration/internal/testdb"
	"github.com/idgen/idgen/plugins/idgorm"
	"github.com/idgen/idgen/runtime/snowflake"
)

type User struct {
	ID    snowflakeid.UserID `gorm:"primaryKey"`
	Email string             `gorm:"size:191;uniqueIndex:idx_users_email"`
	Name  string
}

type Order struct {
	ID        int64          `gorm:"primaryKey" idgen:"snowflake"`
	No        number.OrderNo `gorm:"size:40;uniqueIndex:idx_orders_no" idgen:"fill"`
	RequestID string         `gorm:"size:64;uniqueIndex:idx_orders_request_id"`
	UserID    snowflakeid.UserID
	Amount    int64
	Items     []Item
	DeletedAt gorm.DeletedAt `gorm:"index"`
}

// afterCreates counts Order.AfterCreate calls across the tests.
var afterCreates atomic.Int64

func (o *Order) AfterCreate(*gorm.DB) error { afterCreates.Add(1); return nil }

type Item struct {
	ID      int64 `gorm:"primaryKey" idgen:"snowflake"`
	OrderID *int64
	SKU     string `gorm:"size:32"`
}

// Note is filled by its own BeforeCreate through idgorm.Fill.
type Note struct {
	ID   snowflakeid.UserID `gorm:"primaryKey"`
	Ref  string             `gorm:"size:36" idgen:"uuid7"`
	Text string
}

func (n *Note) BeforeCreate(tx *gorm.DB) error {
	if err := idgorm.Fill(tx, n); err != nil {
		return err
	}
	if n.ID.IsZero() || n.Ref == "" {
		panic("Fill left a zero field")
	}
	return nil
}

type env struct {
	name string
	db   *gorm.DB
	gen  *snowflake.Generator
	// statements counts the statements run through GORM's create, query, row and raw
	// processors: INSERT, SELECT, and the catalog query of CreateOrGet's key lookup.
	statements *atomic.Int64
	// lookups counts the statements of the row and raw processors alone, where the key
	// lookup runs.
	lookups *atomic.Int64
}

// databases opens every database the tests run on: SQLite always, PostgreSQL and MariaDB
// when their variables are set (else a skipped subtest names the variable).
func databases(t *testing.T, name string) []env {
	t.Helper()
	gen, err := snowflake.New(snowflake.Classic(), 5, snowflake.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dialectors := []struct {
		name, env string
		open      func() gorm.Dialector
	}{
		{"sqlite", "", func() gorm.Dialector {
			return sqlite.Open(testdb.SQLiteDSN(t))
		}},
		{"postgres", "IDGEN_TEST_POSTGRES_DSN", func() gorm.Dialector { return postgres.Open(testdb.Postgres(t, name)) }},
		{"mysql", "IDGEN_TEST_MYSQL_DSN", func() gorm.Dialector { return mysql.Open(testdb.MySQL(t, name)) }},
	}
	var out []env
	for _, d := range dialectors {
		if d.env != "" && os.Getenv(d.env) == "" {
			t.Run(d.name, func(t *testing.T) { t.Skipf("set %s to run against %s", d.env, d.name) })
			continue
		}
		db, err := gorm.Open(d.open(), &gorm.Config{Logger: logger.Discard})
		if err != nil {
			t.Fatalf("%s: %v", d.name, err)
		}
		if err := db.Use(idgorm.New(idgorm.Config{Source: gen})); err != nil {
			t.Fatal(err)
		}
		if err := db.AutoMigrate(&User{}, &Order{}, &Item{}, &Note{}); err != nil {
			t.Fatalf("%s: migrate: %v", d.name, err)
		}
		e := env{name: d.name, db: db, gen: gen, statements: new(atomic.Int64), lookups: new(atomic.Int64)}
		count := func(*gorm.DB) { e.statements.Add(1) }
		countLookup := func(*gorm.DB) { e.statements.Add(1); e.lookups.Add(1) }
		db.Callback().Create().Before("gorm:create").Register("test:count", count)
		db.Callback().Query().Before("gorm:query").Register("test:count", count)
		db.Callback().Row().Before("gorm:row").Register("test:count", countLookup)
		db.Callback().Raw().Before("gorm:raw").Register("test:count", countLookup)
		sqlDB, _ := db.DB()
		t.Cleanup(func() { sqlDB.Close() })
		out = append(out, e)
	}
	return out
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return c
}
