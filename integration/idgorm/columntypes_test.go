package idgorm_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/glebarez/sqlite"
	"gorm.io/driver/mysql"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/idgen/idgen/golden/gormtypes"
	"github.com/idgen/idgen/golden/mixed"
	"github.com/idgen/idgen/integration/internal/testdb"
	"github.com/idgen/idgen/plugins/idgorm"
	"github.com/idgen/idgen/runtime/snowflake"
)

// Everything holds one field of every kind: the -gorm types of golden/gormtypes and, for
// the column a type gets without -gorm, golden/mixed's TraceID.
type Everything struct {
	ID      gormtypes.UserID `gorm:"primaryKey"`
	No      gormtypes.OrderNo
	Session gormtypes.SessionID
	Invoice gormtypes.InvoiceTID
	Line    gormtypes.LineTID
	Doc     gormtypes.DocumentID
	Trace   mixed.TraceID
}

// column is the type a column must have: the database's type name (as GORM's ColumnTypes
// reports it) and, when it has one, its length.
type column struct {
	typ    string
	length int64
}

// TestColumnTypes: AutoMigrate gives each kind the column this table documents on each
// database, a second AutoMigrate changes nothing, and every value round-trips through
// GORM and through plain SQL (text written by hand reads back as the ID; the text GORM
// wrote is the ID's String).
func TestColumnTypes(t *testing.T) {
	want := map[string]map[string]column{
		"postgres": {
			"id": {"int8", 0}, "no": {"varchar", 28}, "session": {"uuid", 0}, "invoice": {"uuid", 0},
			"line": {"varchar", 31}, "doc": {"varchar", 24}, "trace": {"varchar", 36},
		},
		"mysql": {
			"id": {"bigint", 0}, "no": {"varchar", 28}, "session": {"char", 36}, "invoice": {"char", 36},
			"line": {"varchar", 31}, "doc": {"varchar", 24}, "trace": {"varchar", 36},
		},
		"sqlite": {
			"id": {"bigint", 0}, "no": {"varchar", 28}, "session": {"varchar", 36}, "invoice": {"varchar", 36},
			"line": {"varchar", 31}, "doc": {"varchar", 24}, "trace": {"varchar", 36},
		},
	}
	gen, err := snowflake.New(snowflake.Classic(), 3, snowflake.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []struct {
		name, env string
		open      func(t *testing.T) gorm.Dialector
	}{
		{"sqlite", "", func(t *testing.T) gorm.Dialector { return sqlite.Open(testdb.SQLiteDSN(t)) }},
		{"postgres", testdb.PostgresEnv, func(t *testing.T) gorm.Dialector { return postgres.Open(testdb.Postgres(t, "gorm_columns")) }},
		{"mysql", testdb.MySQLEnv, func(t *testing.T) gorm.Dialector { return mysql.Open(testdb.MySQL(t, "gorm_columns")) }},
	} {
		t.Run(d.name, func(t *testing.T) {
			if d.env != "" && os.Getenv(d.env) == "" {
				t.Skipf("set %s to run against %s", d.env, d.name)
			}
			db, err := gorm.Open(d.open(t), &gorm.Config{Logger: logger.Discard})
			if err != nil {
				t.Fatal(err)
			}
			sqlDB, _ := db.DB()
			t.Cleanup(func() { sqlDB.Close() })
			if err := db.Use(idgorm.New(idgorm.Config{Source: gen})); err != nil {
				t.Fatal(err)
			}
			for round := 1; round <= 2; round++ {
				if err := db.AutoMigrate(&Everything{}); err != nil {
					t.Fatalf("AutoMigrate #%d: %v", round, err)
				}
				checkColumns(t, db, want[d.name], round)
			}

			// Through GORM: the plugin fills the ID, the rest are made here.
			e := Everything{Line: must(gormtypes.NewLineTID()), Doc: must(gormtypes.NewDocumentID()), Trace: must(mixed.NewTraceID())}
			e.No = must(gormtypes.NewOrderNoFrom(ctx(t), gen))
			e.Session = must(gormtypes.NewSessionID())
			e.Invoice = must(gormtypes.NewInvoiceTID())
			if err := db.Create(&e).Error; err != nil {
				t.Fatal(err)
			}
			var back Everything
			if err := db.First(&back, "id = ?", e.ID).Error; err != nil || back != e {
				t.Fatalf("read back %+v, %v; wrote %+v", back, err, e)
			}
			// Plain SQL sees the text forms String writes.
			var session, line, doc, trace string
			row := db.Raw("SELECT session, line, doc, trace FROM everythings WHERE id = ?", int64(e.ID)).Row()
			if err := row.Scan(&session, &line, &doc, &trace); err != nil {
				t.Fatal(err)
			}
			if session != e.Session.String() || line != e.Line.String() || doc != e.Doc.String() || trace != e.Trace.String() {
				t.Errorf("plain SQL read %q %q %q %q, want %v %v %v %v", session, line, doc, trace, e.Session, e.Line, e.Doc, e.Trace)
			}
			// Text written by hand, uppercase where the form allows it, reads back as the IDs.
			hand := Everything{ID: e.ID + 1, No: e.No, Session: must(gormtypes.NewSessionID()), Invoice: e.Invoice, Line: e.Line, Doc: e.Doc, Trace: e.Trace}
			hand.No = must(gormtypes.NewOrderNoFrom(ctx(t), gen))
			insert := fmt.Sprintf("INSERT INTO everythings (id, no, session, invoice, line, doc, trace) VALUES (%d, '%s', '%s', '%s', '%s', '%s', '%s')",
				hand.ID, hand.No, strings.ToUpper(hand.Session.String()), strings.ToUpper(uuidText(hand.Invoice)), hand.Line,
				strings.ToUpper(hand.Doc.String()), hand.Trace)
			if err := db.Exec(insert).Error; err != nil {
				t.Fatal(err)
			}
			var got Everything
			if err := db.First(&got, "id = ?", hand.ID).Error; err != nil || got != hand {
				t.Fatalf("hand-written row read back as %+v, %v; want %+v", got, err, hand)
			}
		})
	}
}

func checkColumns(t *testing.T, db *gorm.DB, want map[string]column, round int) {
	t.Helper()
	cols, err := db.Migrator().ColumnTypes(&Everything{})
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, c := range cols {
		w, ok := want[c.Name()]
		if !ok {
			continue
		}
		seen++
		typ := strings.ToLower(c.DatabaseTypeName())
		length, _ := c.Length()
		if typ == w.typ+"("+fmt.Sprint(w.length)+")" { // SQLite names the declared type
			typ = w.typ
			length = w.length
		}
		if typ != w.typ || w.length != 0 && length != w.length {
			t.Errorf("after AutoMigrate #%d, column %s is %s(%d), want %s(%d)", round, c.Name(), typ, length, w.typ, w.length)
		}
	}
	if seen != len(want) {
		t.Errorf("found %d of %d columns", seen, len(want))
	}
}

func uuidText(u gormtypes.InvoiceTID) string {
	v, _ := u.Value()
	return v.(string)
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
