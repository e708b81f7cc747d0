// Package edgecase is what the edge tests share: one entry per kind of generated ID with a
// fresh valid text and the texts every reader must refuse, and a table per kind on SQLite
// and PostgreSQL to prove that a refused ID writes nothing.
package edgecase

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"sync"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
	_ "modernc.org/sqlite"             // database/sql driver "sqlite"

	"github.com/idgen/idgen/integration/edges/ids"
	"github.com/idgen/idgen/integration/internal/testdb"
	"github.com/idgen/idgen/runtime/snowflake"
)

// Text is an input with what is wrong with it.
type Text struct {
	Name string // what is wrong: "wrong prefix", "invalid", "negative"
	Text string
}

// ID is what a pointer to a generated ID implements: its reader and its text form.
type ID interface {
	sql.Scanner
	fmt.Stringer
}

// Kind is one kind of generated ID, by the type in package ids that has it.
type Kind struct {
	Name     string // snowflake, prefixed, number, uuid7, typeid, objectid
	Type     string // the Go type in package ids
	Postgres string // the column type on PostgreSQL
	SQLite   string // the column type on SQLite
	// Ptr returns a pointer to a new zero ID of the kind.
	Ptr func() ID
	// New returns the text form of a new ID of the kind.
	New func(t testing.TB) string
	// Bad are texts every reader of the kind refuses (empty text aside, which reads as
	// the zero ID).
	Bad []Text
}

var (
	genOnce sync.Once
	gen     *snowflake.Generator
	genErr  error
)

// source is one generator for every kind that needs one (snowflake, prefixed, number).
func source(t testing.TB) *snowflake.Generator {
	t.Helper()
	genOnce.Do(func() { gen, genErr = snowflake.New(snowflake.Classic(), 7, snowflake.Options{}) })
	if genErr != nil {
		t.Fatal(genErr)
	}
	return gen
}

// text returns a function that fails t on err and returns the text form of v.
func text[T fmt.Stringer](t testing.TB) func(v T, err error) string {
	return func(v T, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v.String()
	}
}

// Kinds are the six kinds, one type each.
var Kinds = []Kind{
	{
		Name: "snowflake", Type: "UserID", Postgres: "BIGINT", SQLite: "INTEGER",
		Ptr: func() ID { return new(ids.UserID) },
		New: func(t testing.TB) string {
			return text[ids.UserID](t)(ids.NewUserIDFrom(context.Background(), source(t)))
		},
		Bad: []Text{
			{"wrong prefix", "acct_0e1kz8d3t2c00"},
			{"invalid", "12x4"},
			{"negative", "-5"},
			{"out of range", "9223372036854775808"},
		},
	},
	{
		Name: "prefixed", Type: "AccountID", Postgres: "BIGINT", SQLite: "INTEGER",
		Ptr: func() ID { return new(ids.AccountID) },
		New: func(t testing.TB) string {
			return text[ids.AccountID](t)(ids.NewAccountIDFrom(context.Background(), source(t)))
		},
		Bad: []Text{
			{"wrong prefix", "usr_0e1kz8d3t2c00"},
			{"no prefix", "0e1kz8d3t2c00"},
			{"invalid", "acct_0e1kz8d3t2c0!"},
			{"negative", "acct_fzzzzzzzzzzzz"},
			{"decimal", "1234567"},
		},
	},
	{
		Name: "number", Type: "OrderNo", Postgres: "TEXT", SQLite: "TEXT",
		Ptr: func() ID { return new(ids.OrderNo) },
		New: func(t testing.TB) string {
			return text[ids.OrderNo](t)(ids.NewOrderNoFrom(context.Background(), source(t)))
		},
		Bad: []Text{
			{"wrong prefix", "PAY202612060430001234567890"},
			{"invalid", "ORD-not-a-number"},
			{"negative", "ORD-1"},
			{"short", "ORD2026"},
		},
	},
	{
		Name: "uuid7", Type: "TraceID", Postgres: "UUID", SQLite: "TEXT",
		Ptr: func() ID { return new(ids.TraceID) },
		New: func(t testing.TB) string {
			return text[ids.TraceID](t)(ids.NewTraceID())
		},
		Bad: []Text{
			{"wrong prefix", "invoice_01h455vb4pex5vsknk084sn02q"},
			{"invalid", "not-a-uuid"},
			{"negative", "-0190a0a7-0000-7000-8000-000000000000"},
		},
	},
	{
		Name: "typeid", Type: "InvoiceID", Postgres: "UUID", SQLite: "TEXT",
		Ptr: func() ID { return new(ids.InvoiceID) },
		New: func(t testing.TB) string {
			return text[ids.InvoiceID](t)(ids.NewInvoiceID())
		},
		Bad: []Text{
			{"wrong prefix", "user_01h455vb4pex5vsknk084sn02q"},
			{"no prefix", "01h455vb4pex5vsknk084sn02q"},
			{"invalid", "invoice_01h455vb4pex5vsknk084sn0!!"},
			{"negative", "-invoice_01h455vb4pex5vsknk084sn02q"},
		},
	},
	{
		Name: "objectid", Type: "DocumentID", Postgres: "TEXT", SQLite: "TEXT",
		Ptr: func() ID { return new(ids.DocumentID) },
		New: func(t testing.TB) string {
			return text[ids.DocumentID](t)(ids.NewDocumentID())
		},
		Bad: []Text{
			{"wrong prefix", "doc_507f1f77bcf86cd799439011"},
			{"invalid", "507f1f77bcf86cd79943901z"},
			{"negative", "-07f1f77bcf86cd799439011"},
			{"short", "507f1f77bcf86cd7994390"},
		},
	},
}

// DB is one database the edge tests write to.
type DB struct {
	Name string // "sqlite" or "postgres"
	*sql.DB
}

// DBs opens a fresh SQLite database and, when IDGEN_TEST_POSTGRES_DSN is set, a fresh
// PostgreSQL database named "idgen_"+name; without the variable a subtest skips naming it.
func DBs(t *testing.T, name string) []DB {
	t.Helper()
	dbs := []DB{{Name: "sqlite", DB: open(t, "sqlite", testdb.SQLiteDSN(t))}}
	if os.Getenv(testdb.PostgresEnv) == "" {
		t.Run("postgres", func(t *testing.T) { t.Skipf("set %s to run against PostgreSQL", testdb.PostgresEnv) })
		return dbs
	}
	return append(dbs, DB{Name: "postgres", DB: open(t, "pgx", testdb.Postgres(t, name))})
}

func open(t *testing.T, driver, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Ping(); err != nil {
		t.Fatalf("%s: %v", driver, err)
	}
	return db
}

// Table returns the name of a new table for kind k, "ids_"+k.Name, with one column id
// of the kind's type as its primary key.
func (db DB) Table(t testing.TB, k Kind) string {
	t.Helper()
	typ := k.SQLite
	if db.Name == "postgres" {
		typ = k.Postgres
	}
	name := "ids_" + k.Name
	for _, q := range []string{"DROP TABLE IF EXISTS " + name, "CREATE TABLE " + name + " (id " + typ + " PRIMARY KEY)"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %s: %v", db.Name, q, err)
		}
	}
	return name
}

// Count returns the number of rows in table.
func (db DB) Count(t testing.TB, table string) int {
	t.Helper()
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM " + table).Scan(&n); err != nil {
		t.Fatalf("%s: count %s: %v", db.Name, table, err)
	}
	return n
}

// Named returns the kind named name.
func Named(t testing.TB, name string) Kind {
	t.Helper()
	for _, k := range Kinds {
		if k.Name == name {
			return k
		}
	}
	t.Fatalf("edgecase: no kind %q", name)
	return Kind{}
}

// Stored returns the text form of the one ID in table, read back with the kind's Scan.
func Stored(t testing.TB, db DB, k Kind, table string) string {
	t.Helper()
	v := k.Ptr()
	if err := db.QueryRow("SELECT id FROM " + table).Scan(v); err != nil {
		t.Fatalf("%s: read %s: %v", db.Name, table, err)
	}
	return v.String()
}
