// Package bun_test runs generated ID types through bun (github.com/uptrace/bun) on
// PostgreSQL and SQLite: the recipe in docs/sql-recipes.md, tag `type:uuid` on the UUID
// kinds, checked as a user would run it.
package bun_test

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"

	"github.com/idgen/idgen/golden/number"
	"github.com/idgen/idgen/golden/prefixed"
	"github.com/idgen/idgen/golden/typeids"
	"github.com/idgen/idgen/golden/uuid7"
	"github.com/idgen/idgen/integration/internal/testdb"
	"github.com/idgen/idgen/runtime/codec"
	"github.com/idgen/idgen/runtime/snowflake"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	_ "modernc.org/sqlite" // database/sql driver "sqlite"
)

// Order is the recipe's model: snowflake IDs and numbers need no tag (bun reads the Go
// kind: int64 is bigint, string is varchar), UUID kinds need type:uuid, or bun makes a
// BYTEA column on PostgreSQL (a [16]byte array) and a typeless one on SQLite, which the
// IDs' 36-character text does not belong in.
type Order struct {
	bun.BaseModel `bun:"table:orders"`

	ID      prefixed.UserID `bun:"id,pk"`
	No      number.OrderNo  `bun:"no,notnull,unique"`
	Session uuid7.SessionID `bun:"session,type:uuid,notnull"`
	Tid     typeids.UserTID `bun:"tid,type:uuid,notnull"`
}

// Untagged is the same model without the tag, to show what the tag is for.
type Untagged struct {
	bun.BaseModel `bun:"table:untagged"`

	ID      prefixed.UserID `bun:"id,pk"`
	Session uuid7.SessionID `bun:"session"`
}

// dialects opens each database the test runs on; PostgreSQL skips, naming its
// variable, when IDGEN_TEST_POSTGRES_DSN is unset.
var dialects = []struct {
	name string
	open func(t *testing.T) *bun.DB
}{
	{"sqlite", func(t *testing.T) *bun.DB {
		db, err := sql.Open("sqlite", testdb.SQLiteDSN(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return bun.NewDB(db, sqlitedialect.New())
	}},
	{"postgres", func(t *testing.T) *bun.DB {
		db, err := sql.Open("pgx", testdb.Postgres(t, "bun"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return bun.NewDB(db, pgdialect.New())
	}},
}

// columnTypes returns the declared type of each column of table, lowercased.
func columnTypes(t *testing.T, db *bun.DB, table string) map[string]string {
	t.Helper()
	q := `SELECT column_name, data_type FROM information_schema.columns WHERE table_name = ?`
	if db.Dialect().Name().String() == "sqlite" {
		q = `SELECT name, type FROM pragma_table_info(?)`
	}
	rows, err := db.QueryContext(context.Background(), q, table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var name, typ string
		if err := rows.Scan(&name, &typ); err != nil {
			t.Fatal(err)
		}
		out[name] = strings.ToLower(typ)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestBun(t *testing.T) {
	ctx := context.Background()
	g, err := snowflake.New(snowflake.Classic(), 4, snowflake.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dialects {
		name := d.name
		t.Run(name, func(t *testing.T) {
			db := d.open(t)
			for _, m := range []any{(*Order)(nil), (*Untagged)(nil)} {
				if _, err := db.NewCreateTable().Model(m).Exec(ctx); err != nil {
					t.Fatal(err)
				}
			}
			want := map[string]string{"id": "bigint", "no": "varchar", "session": "uuid", "tid": "uuid"}
			switch name {
			case "postgres":
				want["no"] = "character varying"
			case "sqlite":
				want["id"] = "integer" // bun's SQLite primary key: the rowid alias, 64 bits
			}
			if got := columnTypes(t, db, "orders"); !equal(got, want) {
				t.Errorf("orders columns %v, want %v", got, want)
			}
			// Without the tag: BYTEA on PostgreSQL, no type on SQLite.
			untagged := map[string]string{"postgres": "bytea", "sqlite": ""}[name]
			if got := columnTypes(t, db, "untagged")["session"]; got != untagged {
				t.Errorf("untagged session column %q, want %q (has bun changed how it maps [16]byte?)", got, untagged)
			}

			orders := make([]Order, 3)
			for i := range orders {
				o := &orders[i]
				must(t, func() (err error) { o.ID, err = prefixed.NewUserIDFrom(ctx, g); return })
				must(t, func() (err error) { o.No, err = number.NewOrderNoFrom(ctx, g); return })
				must(t, func() (err error) { o.Session, err = uuid7.NewSessionID(); return })
				must(t, func() (err error) { o.Tid, err = typeids.NewUserTID(); return })
			}
			if _, err := db.NewInsert().Model(&orders).Exec(ctx); err != nil {
				t.Fatal(err)
			}

			// By key, and by each column.
			for _, c := range []struct {
				where string
				arg   any
			}{
				{"id = ?", orders[1].ID}, {"no = ?", orders[1].No}, {"session = ?", orders[1].Session}, {"tid = ?", orders[1].Tid},
			} {
				var got Order
				if err := db.NewSelect().Model(&got).Where(c.where, c.arg).Scan(ctx); err != nil {
					t.Fatalf("%s: %v", c.where, err)
				}
				if got.ID != orders[1].ID || got.No != orders[1].No || got.Session != orders[1].Session || got.Tid != orders[1].Tid {
					t.Errorf("%s: got %+v, want %+v", c.where, got, orders[1])
				}
			}
			// A slice of typed IDs in IN (?).
			for _, arg := range []any{
				[]prefixed.UserID{orders[0].ID, orders[2].ID},
				[]uuid7.SessionID{orders[0].Session, orders[2].Session},
			} {
				col := "id"
				if _, ok := arg.([]uuid7.SessionID); ok {
					col = "session"
				}
				n, err := db.NewSelect().Model((*Order)(nil)).Where(col+" IN (?)", bun.List(arg)).Count(ctx)
				if err != nil || n != 2 {
					t.Errorf("IN (?) with %T: %d, %v", arg, n, err)
				}
			}
			// An invalid ID is refused by its writer, and nothing is written. bun writes
			// values into the query text, and a Value error as ?!(message), which the
			// server refuses as a syntax error: the error does not wrap codec.ErrInvalid,
			// but the query shows the writer's message.
			bad := Order{ID: -1, No: orders[0].No, Session: orders[0].Session, Tid: orders[0].Tid}
			ins := db.NewInsert().Model(&bad)
			if _, err := ins.Exec(ctx); err == nil {
				t.Error("insert of UserID(-1) succeeded")
			}
			if _, werr := bad.ID.Value(); !errors.Is(werr, codec.ErrInvalid) || !strings.Contains(ins.String(), "?!("+werr.Error()+")") {
				t.Errorf("Value of UserID(-1): %v; query %s", werr, ins.String())
			}
			if n, err := db.NewSelect().Model((*Order)(nil)).Count(ctx); err != nil || n != 3 {
				t.Errorf("%d rows, %v; want 3", n, err)
			}
		})
	}
}

func equal(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func must(t *testing.T, f func() error) {
	t.Helper()
	if err := f(); err != nil {
		t.Fatal(err)
	}
}
