package idem_test

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/idgen/idgen/runtime/idem"
)

// countingConnector counts the statements sent to a database: every Exec and Query
// reaching a connection, in or out of a transaction.
type countingConnector struct {
	driver.Connector
	n *atomic.Int64
}

func (c countingConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &countingConn{Conn: conn, n: c.n}, nil
}

type countingConn struct {
	driver.Conn
	n *atomic.Int64
}

func (c *countingConn) ExecContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	c.n.Add(1)
	return c.Conn.(driver.ExecerContext).ExecContext(ctx, q, args)
}

func (c *countingConn) QueryContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	c.n.Add(1)
	return c.Conn.(driver.QueryerContext).QueryContext(ctx, q, args)
}

func (c *countingConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	return c.Conn.(driver.ConnBeginTx).BeginTx(ctx, opts)
}

func (c *countingConn) CheckNamedValue(v *driver.NamedValue) error {
	if nc, ok := c.Conn.(driver.NamedValueChecker); ok {
		return nc.CheckNamedValue(v)
	}
	return driver.ErrSkip
}

func (c *countingConn) ResetSession(ctx context.Context) error {
	if r, ok := c.Conn.(driver.SessionResetter); ok {
		return r.ResetSession(ctx)
	}
	return nil
}

// dsnConnector is the connector of a driver that has none of its own.
type dsnConnector struct {
	drv driver.Driver
	dsn string
}

func (c dsnConnector) Connect(context.Context) (driver.Conn, error) { return c.drv.Open(c.dsn) }
func (c dsnConnector) Driver() driver.Driver                        { return c.drv }

// countingDB opens b's database at dsn through a connector that counts statements.
func countingDB(t *testing.T, b sqlBackend, dsn string) (*sql.DB, *atomic.Int64) {
	t.Helper()
	plain, err := sql.Open(b.driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	var conn driver.Connector = dsnConnector{plain.Driver(), dsn}
	if dc, ok := plain.Driver().(driver.DriverContext); ok {
		if conn, err = dc.OpenConnector(dsn); err != nil {
			t.Fatal(err)
		}
	}
	n := new(atomic.Int64)
	db := sql.OpenDB(countingConnector{conn, n})
	t.Cleanup(func() { db.Close() })
	return db, n
}

// TestRoundTrips counts what a new key costs the store through the middleware: one
// statement or script to claim and one to complete, on every SQL database and Redis, and
// no renewal for work shorter than LockTimeout/3.
func TestRoundTrips(t *testing.T) {
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(201) })
	request := func(h http.Handler, key string) int {
		req := httptest.NewRequest(http.MethodPost, "/orders", strings.NewReader(`{"cents":1}`))
		req.Header.Set("Idempotency-Key", key)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code
	}
	measure := func(t *testing.T, s idem.Store, n *atomic.Int64) {
		mw, err := idem.New(idem.Config{Store: s, Scope: idem.SingleTenant})
		if err != nil {
			t.Fatal(err)
		}
		h := mw.Wrap(handler)
		request(h, "warm-up") // the first claim may learn about the connection
		const keys = 20
		before := n.Load()
		for i := range keys {
			if code := request(h, uniqueKey(t, "rt")+string(rune('a'+i))); code != 201 {
				t.Fatalf("status %d", code)
			}
		}
		per := float64(n.Load()-before) / keys
		t.Logf("%.2f round trips per new key", per)
		if per > 2 {
			t.Errorf("%.2f round trips per new key, want at most 2 (claim, complete)", per)
		}
		before = n.Load()
		request(h, uniqueKey(t, "rt")+"a") // a replay: one claim that finds the record
		if got := n.Load() - before; got > 2 {
			t.Errorf("a replay took %d round trips", got)
		}
	}
	for _, b := range sqlBackends {
		t.Run(b.name, func(t *testing.T) {
			if b.env != "" && os.Getenv(b.env) == "" {
				t.Skip("set " + b.env + " to run against " + b.name)
			}
			db, n := countingDB(t, b, b.dsn(t, "idem_rt"))
			s, err := idem.NewSQL(db, b.dialect, idem.SQLOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.CreateTable(context.Background()); err != nil {
				t.Fatal(err)
			}
			measure(t, s, n)
		})
	}
	t.Run("redis", func(t *testing.T) {
		c, prefix := redisClient(t)
		n := new(atomic.Int64)
		c.AddHook(countingHook{n})
		measure(t, sharedRedis(t, c, prefix), n)
	})
}

// countingHook counts the commands go-redis sends.
type countingHook struct{ n *atomic.Int64 }

func (h countingHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h countingHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.n.Add(1)
		return next(ctx, cmd)
	}
}

func (h countingHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		h.n.Add(int64(len(cmds)))
		return next(ctx, cmds)
	}
}
