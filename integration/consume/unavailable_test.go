package consume_test

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/idgen/idgen/integration/internal/consumetest"
	"github.com/idgen/idgen/integration/internal/testdb"
	"github.com/idgen/idgen/runtime/consume"
	"github.com/idgen/idgen/runtime/ledger"
	"github.com/idgen/idgen/runtime/sqldb"
)

// lossy wraps a database/sql driver so that a COMMIT that succeeded can answer an error,
// as when the connection breaks after the server committed and before its answer
// arrived.
type lossy struct {
	driver.Driver
	lose *atomic.Bool // the next successful COMMIT answers an error
}

type fullConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ExecerContext
	driver.QueryerContext
}

func (d lossy) Open(name string) (driver.Conn, error) {
	c, err := d.Driver.Open(name)
	if err != nil {
		return nil, err
	}
	return &lossyConn{c.(fullConn), d.lose}, nil
}

type lossyConn struct {
	fullConn
	lose *atomic.Bool
}

func (c *lossyConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	tx, err := c.fullConn.BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	return &lossyTx{tx, c.lose}, nil
}

type lossyTx struct {
	driver.Tx
	lose *atomic.Bool
}

// errLost is a commit's answer no classification knows: it counts as the message's
// failure, and the ledger decides.
var errLost = errors.New("the answer to COMMIT was lost")

func (t *lossyTx) Commit() error {
	if err := t.Tx.Commit(); err != nil {
		return err
	}
	if t.lose.CompareAndSwap(true, false) {
		return errLost
	}
	return nil
}

// TestOnceTxLostCommit: the work of a message commits but the answer to its COMMIT is an
// error that is not the store's (it would count toward the message's attempts, and at the
// last one dead-letter a message whose effect is done): OnceTx asks the ledger, finds the
// key recorded, and reports the message done (ran false, no error), so the adapter
// acknowledges it. Work that did not commit still fails.
func TestOnceTxLostCommit(t *testing.T) {
	ctx := context.Background()
	dsn := "file:" + filepath.Join(t.TempDir(), "c.db") + "?_pragma=busy_timeout(20000)&_pragma=journal_mode(WAL)"
	plain, err := sql.Open("sqlite", dsn) // for its driver
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	var lose atomic.Bool
	db := sql.OpenDB(connector{lossy{plain.Driver(), &lose}, dsn})
	defer db.Close()
	l, err := ledger.New(sqldb.SQLite, ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.CreateTable(ctx, db); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE effects (k TEXT)"); err != nil {
		t.Fatal(err)
	}
	fail := false
	p := consume.OnceTx(db, l, func(ctx context.Context, tx *sql.Tx, m string) error {
		if fail {
			return errors.New("boom")
		}
		_, err := tx.ExecContext(ctx, "INSERT INTO effects VALUES (?)", m)
		return err
	})
	lose.Store(true)
	if ran, err := p(ctx, "k1", "k1"); ran || err != nil {
		t.Errorf("the work committed, its COMMIT answered %v: OnceTx = %v, %v; want false, nil (done)", errLost, ran, err)
	}
	if lose.Load() {
		t.Fatal("the COMMIT did not lose its answer")
	}
	if n := rows(t, db); n != 1 {
		t.Errorf("%d effect rows, want 1", n)
	}
	if ran, err := p(ctx, "k1", "k1"); ran || err != nil {
		t.Errorf("a redelivery: %v, %v; want false, nil", ran, err)
	}
	fail = true
	if ran, err := p(ctx, "k2", "k2"); ran || err == nil || err.Error() != "boom" {
		t.Errorf("work that failed: %v, %v; want false, boom", ran, err)
	}
}

// connector opens the lossy driver on a DSN.
type connector struct {
	d   driver.Driver
	dsn string
}

func (c connector) Connect(context.Context) (driver.Conn, error) { return c.d.Open(c.dsn) }
func (c connector) Driver() driver.Driver                        { return c.d }

// TestUnavailableDrivers: consume.Unavailable on what the real drivers return when the
// connection is cut by the server (a session terminated or killed), when nothing listens,
// and when the server is stopped under an open transaction (a server of the test's own);
// and not on the server's answers to bad statements.
func TestUnavailableDrivers(t *testing.T) {
	ctx := context.Background()
	type server struct {
		name, driver, dsn, self, kill, refused string
	}
	var servers []server
	if os.Getenv(testdb.PostgresEnv) != "" {
		servers = append(servers, server{"postgres", "pgx", testdb.Postgres(t, "unavailable_pg"), "SELECT pg_backend_pid()",
			"SELECT pg_terminate_backend($1)", "postgres://postgres@127.0.0.1:1/x?sslmode=disable&connect_timeout=5"})
	}
	if os.Getenv(testdb.MySQLEnv) != "" {
		servers = append(servers, server{"mariadb", "mysql", testdb.MySQL(t, "unavailable_my"), "SELECT CONNECTION_ID()",
			"KILL ?", "root@tcp(127.0.0.1:1)/x?timeout=5s"})
	}
	if len(servers) == 0 {
		t.Skip("set " + testdb.PostgresEnv + " or " + testdb.MySQLEnv)
	}
	for _, s := range servers {
		t.Run(s.name, func(t *testing.T) {
			db, err := sql.Open(s.driver, s.dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.Exec("CREATE TABLE u (k INTEGER PRIMARY KEY)"); err != nil {
				t.Fatal(err)
			}
			conn, err := db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			var id int64
			if err := conn.QueryRowContext(ctx, s.self).Scan(&id); err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec(s.kill, id); err != nil {
				t.Fatal(err)
			}
			_, cut := conn.ExecContext(ctx, "INSERT INTO u VALUES (1)")
			refusedDB, err := sql.Open(s.driver, s.refused)
			if err != nil {
				t.Fatal(err)
			}
			defer refusedDB.Close()
			refused := refusedDB.PingContext(ctx)
			_, syntax := db.Exec("INSERT INTO nowhere VALUES (1)")
			db.Exec("INSERT INTO u VALUES (2)")
			_, dup := db.Exec("INSERT INTO u VALUES (2)")
			for _, tc := range []struct {
				what string
				err  error
				want bool
			}{
				{"its session cut by the server", cut, true},
				{"nothing listening", refused, true},
				{"a missing table", syntax, false},
				{"a duplicate key", dup, false},
			} {
				if tc.err == nil {
					t.Errorf("%s: no error", tc.what)
					continue
				}
				if got := consume.Unavailable(tc.err); got != tc.want {
					t.Errorf("%s: Unavailable(%v) = %v, want %v", tc.what, tc.err, got, tc.want)
				}
			}
		})
	}
	t.Run("postgres-stopped", func(t *testing.T) {
		pg := consumetest.StartPostgres(t)
		db, err := sql.Open("pgx", pg.DSN)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec("SELECT 1"); err != nil {
			t.Fatal(err)
		}
		pg.Stop()
		commit := tx.Commit()
		_, begin := db.BeginTx(ctx, nil)
		for what, err := range map[string]error{"a COMMIT when the server stopped": commit, "a BEGIN while it is down": begin} {
			if err == nil || !consume.Unavailable(err) {
				t.Errorf("%s: Unavailable(%v) = false, want true", what, err)
			}
		}
	})
}
