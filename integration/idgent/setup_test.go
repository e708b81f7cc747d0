package idgent_test

import (
	"context"
	"database/sql"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	_ "github.com/go-sql-driver/mysql"
	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"

	"github.com/idgen/idgen"
	"github.com/idgen/idgen/examples/ent/ent"
	_ "github.com/idgen/idgen/examples/ent/ent/runtime"
	"github.com/idgen/idgen/integration/internal/testdb"
	"github.com/idgen/idgen/runtime/snowflake"
)

type env struct {
	name   string
	client *ent.Client
	// statements counts the SQL statements sent (Exec and Query, in and out of transactions).
	statements *atomic.Int64
}

// databases opens the example schema on SQLite and, when their variables are set, on
// PostgreSQL and MariaDB; a skipped subtest names a missing variable.
func databases(t *testing.T, name string) []env {
	t.Helper()
	gen, err := snowflake.New(snowflake.Classic(), 9, snowflake.Options{})
	if err != nil {
		t.Fatal(err)
	}
	idgen.SetDefault(gen)
	t.Cleanup(func() { idgen.SetDefault(nil) })
	backends := []struct {
		name, env, driver, dialect string
		dsn                        func() string
	}{
		{"sqlite", "", "sqlite", dialect.SQLite, func() string {
			return testdb.SQLiteDSN(t, "foreign_keys(1)")
		}},
		{"postgres", "IDGEN_TEST_POSTGRES_DSN", "pgx", dialect.Postgres, func() string { return testdb.Postgres(t, name) }},
		{"mysql", "IDGEN_TEST_MYSQL_DSN", "mysql", dialect.MySQL, func() string { return testdb.MySQL(t, name) }},
	}
	var out []env
	for _, b := range backends {
		if b.env != "" && os.Getenv(b.env) == "" {
			t.Run(b.name, func(t *testing.T) { t.Skipf("set %s to run against %s", b.env, b.name) })
			continue
		}
		db, err := sql.Open(b.driver, b.dsn())
		if err != nil {
			t.Fatal(err)
		}
		count := new(atomic.Int64)
		client := ent.NewClient(ent.Driver(&countingDriver{Driver: entsql.OpenDB(b.dialect, db), n: count}))
		t.Cleanup(func() { client.Close() })
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := client.Schema.Create(ctx); err != nil {
			t.Fatalf("%s: migrate: %v", b.name, err)
		}
		out = append(out, env{name: b.name, client: client, statements: count})
	}
	return out
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return c
}

// countingDriver counts the statements ent sends.
type countingDriver struct {
	dialect.Driver
	n *atomic.Int64
}

func (d *countingDriver) Exec(ctx context.Context, query string, args, v any) error {
	d.n.Add(1)
	return d.Driver.Exec(ctx, query, args, v)
}

func (d *countingDriver) Query(ctx context.Context, query string, args, v any) error {
	d.n.Add(1)
	return d.Driver.Query(ctx, query, args, v)
}

func (d *countingDriver) Tx(ctx context.Context) (dialect.Tx, error) {
	tx, err := d.Driver.Tx(ctx)
	if err != nil {
		return nil, err
	}
	return &countingTx{Tx: tx, n: d.n}, nil
}

func (d *countingDriver) BeginTx(ctx context.Context, opts *sql.TxOptions) (dialect.Tx, error) {
	tx, err := d.Driver.(interface {
		BeginTx(context.Context, *sql.TxOptions) (dialect.Tx, error)
	}).BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	return &countingTx{Tx: tx, n: d.n}, nil
}

type countingTx struct {
	dialect.Tx
	n *atomic.Int64
}

func (t *countingTx) Exec(ctx context.Context, query string, args, v any) error {
	t.n.Add(1)
	return t.Tx.Exec(ctx, query, args, v)
}

func (t *countingTx) Query(ctx context.Context, query string, args, v any) error {
	t.n.Add(1)
	return t.Tx.Query(ctx, query, args, v)
}

// execContext and queryContext are what ent's sql/execquery feature calls on a driver or
// a transaction.
type (
	execContext interface {
		ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	}
	queryContext interface {
		QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	}
)

func (d *countingDriver) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	d.n.Add(1)
	return d.Driver.(execContext).ExecContext(ctx, query, args...)
}

func (t *countingTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	t.n.Add(1)
	return t.Tx.(execContext).ExecContext(ctx, query, args...)
}

func (d *countingDriver) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	d.n.Add(1)
	return d.Driver.(queryContext).QueryContext(ctx, query, args...)
}

func (t *countingTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	t.n.Add(1)
	return t.Tx.(queryContext).QueryContext(ctx, query, args...)
}
