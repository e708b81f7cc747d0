// Package idpgx_test runs plugins/idpgx against PostgreSQL with types cmd/idgen-gen wrote
// (the golden packages): typed IDs and slices of them as arguments, and typed IDs scanned
// back, in every pgx exec mode, PgBouncer's included.
package idpgx_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/idgen/idgen/golden/number"
	"github.com/idgen/idgen/golden/objectids"
	"github.com/idgen/idgen/golden/prefixed"
	"github.com/idgen/idgen/golden/typeids"
	"github.com/idgen/idgen/golden/uuid7"
	"github.com/idgen/idgen/integration/internal/testdb"
	"github.com/idgen/idgen/plugins/idpgx"
	"github.com/idgen/idgen/runtime/codec"
	"github.com/idgen/idgen/runtime/snowflake"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// modes are every exec mode pgx has; Exec and SimpleProtocol never ask the server for
// parameter types, so only a registered Go type can be sent there.
var modes = []pgx.QueryExecMode{
	pgx.QueryExecModeCacheStatement,
	pgx.QueryExecModeCacheDescribe,
	pgx.QueryExecModeDescribeExec,
	pgx.QueryExecModeExec,
	pgx.QueryExecModeSimpleProtocol,
}

// row is one row of the test table: a column for each storage a generated type has.
type row struct {
	User    prefixed.UserID      // bigint
	Order   number.OrderNo       // text
	Session uuid7.SessionID      // uuid
	Tid     typeids.UserTID      // uuid (a TypeID stored as its UUID)
	Line    typeids.LineItemTID  // text (a TypeID stored as its text)
	Doc     objectids.DocumentID // text
}

// column is one column of the table with the arguments a test passes for it.
type column struct {
	name  string
	one   func(r row) any    // a scalar argument
	slice func(rs []row) any // a slice of the type
	scan  func(r *row) any   // a pointer to scan into
	wrong any                // a slice holding a value no reader accepts, refused by its writer
	ptrs  func(rs []row) any // a slice of pointers
}

var columns = []column{
	{
		name:  "usr",
		one:   func(r row) any { return r.User },
		slice: func(rs []row) any { return collect(rs, func(r row) prefixed.UserID { return r.User }) },
		ptrs:  func(rs []row) any { return collectPtr(rs, func(r *row) *prefixed.UserID { return &r.User }) },
		scan:  func(r *row) any { return &r.User },
		wrong: []prefixed.UserID{-1},
	},
	{
		name:  "ord",
		one:   func(r row) any { return r.Order },
		slice: func(rs []row) any { return collect(rs, func(r row) number.OrderNo { return r.Order }) },
		ptrs:  func(rs []row) any { return collectPtr(rs, func(r *row) *number.OrderNo { return &r.Order }) },
		scan:  func(r *row) any { return &r.Order },
		wrong: []number.OrderNo{"ORD-not-a-number"},
	},
	{
		name:  "ses",
		one:   func(r row) any { return r.Session },
		slice: func(rs []row) any { return collect(rs, func(r row) uuid7.SessionID { return r.Session }) },
		ptrs:  func(rs []row) any { return collectPtr(rs, func(r *row) *uuid7.SessionID { return &r.Session }) },
		scan:  func(r *row) any { return &r.Session },
	},
	{
		name:  "tid",
		one:   func(r row) any { return r.Tid },
		slice: func(rs []row) any { return collect(rs, func(r row) typeids.UserTID { return r.Tid }) },
		ptrs:  func(rs []row) any { return collectPtr(rs, func(r *row) *typeids.UserTID { return &r.Tid }) },
		scan:  func(r *row) any { return &r.Tid },
	},
	{
		name:  "line",
		one:   func(r row) any { return r.Line },
		slice: func(rs []row) any { return collect(rs, func(r row) typeids.LineItemTID { return r.Line }) },
		ptrs:  func(rs []row) any { return collectPtr(rs, func(r *row) *typeids.LineItemTID { return &r.Line }) },
		scan:  func(r *row) any { return &r.Line },
	},
	{
		name:  "doc",
		one:   func(r row) any { return r.Doc },
		slice: func(rs []row) any { return collect(rs, func(r row) objectids.DocumentID { return r.Doc }) },
		ptrs:  func(rs []row) any { return collectPtr(rs, func(r *row) *objectids.DocumentID { return &r.Doc }) },
		scan:  func(r *row) any { return &r.Doc },
	},
}

func collect[T any](rs []row, f func(row) T) []T {
	out := make([]T, len(rs))
	for i, r := range rs {
		out[i] = f(r)
	}
	return out
}

func collectPtr[T any](rs []row, f func(*row) *T) []*T {
	out := make([]*T, len(rs))
	for i := range rs {
		out[i] = f(&rs[i])
	}
	return out
}

const schema = `CREATE TABLE items (
	usr bigint PRIMARY KEY, ord text NOT NULL, ses uuid NOT NULL, tid uuid NOT NULL,
	line text NOT NULL, doc text NOT NULL)`

// setup creates the table in a fresh database, inserts three rows and returns the DSN.
func setup(t *testing.T) (string, []row) {
	t.Helper()
	ctx := context.Background()
	dsn := testdb.Postgres(t, "idpgx")
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, schema); err != nil {
		t.Fatal(err)
	}
	g, err := snowflake.New(snowflake.Classic(), 3, snowflake.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rows := make([]row, 3)
	for i := range rows {
		r := &rows[i]
		must(t, func() (err error) { r.User, err = prefixed.NewUserIDFrom(ctx, g); return })
		must(t, func() (err error) { r.Order, err = number.NewOrderNoFrom(ctx, g); return })
		must(t, func() (err error) { r.Session, err = uuid7.NewSessionID(); return })
		must(t, func() (err error) { r.Tid, err = typeids.NewUserTID(); return })
		must(t, func() (err error) { r.Line, err = typeids.NewLineItemTID(); return })
		must(t, func() (err error) { r.Doc, err = objectids.NewDocumentID(); return })
		if _, err := conn.Exec(ctx, `INSERT INTO items VALUES ($1, $2, $3, $4, $5, $6)`,
			r.User, r.Order, r.Session, r.Tid, r.Line, r.Doc); err != nil {
			t.Fatal(err)
		}
	}
	return dsn, rows
}

func must(t *testing.T, f func() error) {
	t.Helper()
	if err := f(); err != nil {
		t.Fatal(err)
	}
}

// TestExecModes passes typed IDs, slices of them and slices of pointers to them in every
// exec mode through a pool whose AfterConnect is idpgx.Register, and scans typed IDs back.
func TestExecModes(t *testing.T) {
	dsn, rows := setup(t)
	ctx := context.Background()
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.AfterConnect = idpgx.Register
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()

	for _, mode := range modes {
		for _, c := range columns {
			t.Run(fmt.Sprintf("%v/%s", mode, c.name), func(t *testing.T) {
				// WHERE col = ANY($1) with a slice of the type, and of pointers to it: the
				// first two rows, not the third.
				for what, arg := range map[string]any{"slice": c.slice(rows[:2]), "pointers": c.ptrs(rows[:2])} {
					var n int
					if err := pool.QueryRow(ctx, `SELECT count(*) FROM items WHERE `+c.name+` = ANY($1)`, mode, arg).Scan(&n); err != nil {
						t.Fatalf("%s %T: %v", what, arg, err)
					}
					if n != 2 {
						t.Errorf("%s %T: %d rows, want 2", what, arg, n)
					}
				}
				// A scalar argument, and the whole row scanned into typed IDs.
				var got row
				r := rows[2]
				err := pool.QueryRow(ctx, `SELECT usr, ord, ses, tid, line, doc FROM items WHERE `+c.name+` = $1`, mode, c.one(r)).
					Scan(&got.User, &got.Order, &got.Session, &got.Tid, &got.Line, &got.Doc)
				if err != nil {
					t.Fatalf("scalar %T: %v", c.one(r), err)
				}
				if got != r {
					t.Errorf("scanned %+v, want %+v", got, r)
				}
				// A value no reader accepts is refused by the type's writer, inside a slice
				// too, before anything reaches the server.
				if c.wrong != nil {
					var n int
					err := pool.QueryRow(ctx, `SELECT count(*) FROM items WHERE `+c.name+` = ANY($1)`, mode, c.wrong).Scan(&n)
					if !errors.Is(err, codec.ErrInvalid) {
						t.Errorf("%#v: err %v, want one matching codec.ErrInvalid", c.wrong, err)
					}
				}
			})
		}
	}
}

// TestWithoutRegister shows what the plugin fixes: without it, a slice of typed IDs cannot
// be sent in QueryExecModeExec or QueryExecModeSimpleProtocol.
func TestWithoutRegister(t *testing.T) {
	dsn, rows := setup(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeExec, pgx.QueryExecModeSimpleProtocol} {
		var n int
		err := conn.QueryRow(ctx, `SELECT count(*) FROM items WHERE usr = ANY($1)`, mode, columns[0].slice(rows)).Scan(&n)
		if err == nil {
			t.Errorf("%v: []UserID was sent without Register; the plugin may no longer be needed", mode)
		}
	}
	// On the same connection, Register makes it work.
	if err := idpgx.Register(ctx, conn); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeExec, pgx.QueryExecModeSimpleProtocol} {
		var n int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM items WHERE usr = ANY($1)`, mode, columns[0].slice(rows)).Scan(&n); err != nil || n != 3 {
			t.Errorf("%v after Register: %d rows, %v", mode, n, err)
		}
	}
}
