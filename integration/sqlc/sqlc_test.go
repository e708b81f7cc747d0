// Package sqlc_test runs the queries sqlc generated from sqlc.yaml (the recipe in
// docs/sql-recipes.md) with typed IDs, on PostgreSQL (pg, pgx/v5) and SQLite (lite,
// database/sql). integration/sqlc/generate regenerates pg and lite; CI fails on a diff.
package sqlc_test

import (
	"context"
	"database/sql"
	_ "embed"
	"errors"
	"slices"
	"testing"

	"github.com/idgen/idgen/golden/number"
	"github.com/idgen/idgen/golden/prefixed"
	"github.com/idgen/idgen/golden/uuid7"
	"github.com/idgen/idgen/integration/internal/testdb"
	"github.com/idgen/idgen/integration/sqlc/lite"
	"github.com/idgen/idgen/integration/sqlc/pg"
	"github.com/idgen/idgen/plugins/idpgx"
	"github.com/idgen/idgen/runtime/codec"
	"github.com/idgen/idgen/runtime/snowflake"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	_ "modernc.org/sqlite" // database/sql driver "sqlite"
)

var (
	//go:embed pg/schema.sql
	pgSchema string
	//go:embed lite/schema.sql
	liteSchema string
)

// order is one row, in the typed IDs both packages use.
type order struct {
	ID      prefixed.UserID
	No      number.OrderNo
	Session uuid7.SessionID
}

func newOrders(t *testing.T, n int) []order {
	t.Helper()
	ctx := context.Background()
	g, err := snowflake.New(snowflake.Classic(), 6, snowflake.Options{})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]order, n)
	for i := range out {
		o := &out[i]
		if o.ID, err = prefixed.NewUserIDFrom(ctx, g); err != nil {
			t.Fatal(err)
		}
		if o.No, err = number.NewOrderNoFrom(ctx, g); err != nil {
			t.Fatal(err)
		}
		if o.Session, err = uuid7.NewSessionID(); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// newPool returns a pool on dsn whose connections run queries in mode and register the
// typed IDs with idpgx.
func newPool(t *testing.T, dsn string, mode pgx.QueryExecMode) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnConfig.DefaultQueryExecMode = mode
	cfg.AfterConnect = idpgx.Register
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// TestPostgres runs the pgx/v5 queries in every exec mode, PgBouncer's included, on
// pools registered with idpgx.
func TestPostgres(t *testing.T) {
	ctx := context.Background()
	dsn := testdb.Postgres(t, "sqlc")
	pool := newPool(t, dsn, pgx.QueryExecModeCacheStatement)
	if _, err := pool.Exec(ctx, pgSchema); err != nil {
		t.Fatal(err)
	}
	rows := newOrders(t, 3)
	q := pg.New(pool)
	for _, o := range rows {
		if err := q.CreateOrder(ctx, pg.CreateOrderParams{ID: o.ID, No: o.No, Session: o.Session}); err != nil {
			t.Fatal(err)
		}
	}
	for _, mode := range []pgx.QueryExecMode{
		pgx.QueryExecModeCacheStatement, pgx.QueryExecModeCacheDescribe, pgx.QueryExecModeDescribeExec,
		pgx.QueryExecModeExec, pgx.QueryExecModeSimpleProtocol,
	} {
		t.Run(mode.String(), func(t *testing.T) {
			q := pg.New(newPool(t, dsn, mode))
			got, err := q.GetOrder(ctx, rows[1].ID)
			if err != nil || order(got) != rows[1] {
				t.Errorf("GetOrder = %+v, %v", got, err)
			}
			if got, err := q.GetOrderByNo(ctx, rows[1].No); err != nil || order(got) != rows[1] {
				t.Errorf("GetOrderByNo = %+v, %v", got, err)
			}
			list, err := q.ListOrders(ctx, []prefixed.UserID{rows[0].ID, rows[2].ID})
			if err != nil || !slices.Equal(toOrders(list), []order{rows[0], rows[2]}) {
				t.Errorf("ListOrders = %+v, %v", list, err)
			}
			list, err = q.ListOrdersBySession(ctx, []uuid7.SessionID{rows[0].Session, rows[2].Session})
			if err != nil || len(list) != 2 {
				t.Errorf("ListOrdersBySession = %+v, %v", list, err)
			}
			if _, err := q.ListOrders(ctx, []prefixed.UserID{-1}); !errors.Is(err, codec.ErrInvalid) {
				t.Errorf("ListOrders with UserID(-1): %v, want an error matching codec.ErrInvalid", err)
			}
		})
	}
}

func toOrders[T pg.Order | lite.Order](list []T) []order {
	out := make([]order, len(list))
	for i, o := range list {
		out[i] = order(o)
	}
	return out
}

// TestSQLite runs the database/sql queries, sqlc.slice for the slices.
func TestSQLite(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("sqlite", testdb.SQLiteDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, liteSchema); err != nil {
		t.Fatal(err)
	}
	rows := newOrders(t, 3)
	q := lite.New(db)
	for _, o := range rows {
		if err := q.CreateOrder(ctx, lite.CreateOrderParams{ID: o.ID, No: o.No, Session: o.Session}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := q.GetOrder(ctx, rows[1].ID)
	if err != nil || order(got) != rows[1] {
		t.Errorf("GetOrder = %+v, %v", got, err)
	}
	if got, err := q.GetOrderByNo(ctx, rows[1].No); err != nil || order(got) != rows[1] {
		t.Errorf("GetOrderByNo = %+v, %v", got, err)
	}
	list, err := q.ListOrders(ctx, []prefixed.UserID{rows[0].ID, rows[2].ID})
	if err != nil || !slices.Equal(toOrders(list), []order{rows[0], rows[2]}) {
		t.Errorf("ListOrders = %+v, %v", list, err)
	}
	list, err = q.ListOrdersBySession(ctx, []uuid7.SessionID{rows[0].Session, rows[2].Session})
	if err != nil || len(list) != 2 {
		t.Errorf("ListOrdersBySession = %+v, %v", list, err)
	}
	err = q.CreateOrder(ctx, lite.CreateOrderParams{ID: -1, No: rows[0].No, Session: rows[0].Session})
	if !errors.Is(err, codec.ErrInvalid) {
		t.Errorf("CreateOrder with UserID(-1): %v, want an error matching codec.ErrInvalid", err)
	}
}
