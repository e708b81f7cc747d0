package idem_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "modernc.org/sqlite" // database/sql driver "sqlite"

	"github.com/idgen/idgen/integration/internal/testdb"
	"github.com/idgen/idgen/runtime/idem"
	"github.com/idgen/idgen/runtime/sqldb"
)

// sqlBackend is one database an SQL store is tested on.
type sqlBackend struct {
	name, driver string
	dialect      sqldb.Dialect
	env          string // the variable naming the server; "" for SQLite, always run
	// dsn returns a DSN for a fresh database, named after name on a server.
	dsn func(tb testing.TB, name string) string
}

var sqlBackends = []sqlBackend{
	{name: "postgres", driver: "pgx", dialect: sqldb.Postgres, env: testdb.PostgresEnv, dsn: testdb.Postgres},
	{name: "mysql", driver: "mysql", dialect: sqldb.MySQL, env: testdb.MySQLEnv, dsn: testdb.MySQL},
	{name: "sqlite", driver: "sqlite", dialect: sqldb.SQLite, dsn: func(tb testing.TB, _ string) string { return testdb.SQLiteDSN(tb) }},
}

// open returns a handle on the database at dsn, closed when the test ends: one process's
// worth of connections.
func (b sqlBackend) open(tb testing.TB, dsn string) *sql.DB {
	tb.Helper()
	db, err := sql.Open(b.driver, dsn)
	if err != nil {
		tb.Fatal(err)
	}
	// Few enough for the servers' connection limits (PostgreSQL's 100 by default, shared
	// with the other packages' tests), and kept open: reopening them after every race
	// dominated the tests' time. The races still run 16 statements at once per handle.
	db.SetMaxOpenConns(16)
	db.SetMaxIdleConns(16)
	tb.Cleanup(func() { db.Close() })
	return db
}

// store returns a store on db with its table created.
func (b sqlBackend) store(tb testing.TB, db *sql.DB, opts ...idem.SQLOptions) *idem.SQL {
	tb.Helper()
	var o idem.SQLOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	s, err := idem.NewSQL(db, b.dialect, o)
	if err != nil {
		tb.Fatal(err)
	}
	if err := s.CreateTable(context.Background()); err != nil {
		tb.Fatal(err)
	}
	return s
}

func init() {
	extraStores = append(extraStores, sqlStores)
}

var sqlStoreDBs atomic.Int64

// sqlStores returns an SQLStore on each configured database, for the middleware tests:
// SQLite always, the servers when their variables are set.
func sqlStores(tb testing.TB) []namedStore {
	var out []namedStore
	for _, b := range sqlBackends {
		if b.env != "" && os.Getenv(b.env) == "" {
			continue
		}
		dsn := b.dsn(tb, fmt.Sprintf("idem_mw_%d", sqlStoreDBs.Add(1)))
		open := func(tb testing.TB) (idem.Store, func()) {
			db := b.open(tb, dsn)
			return b.store(tb, db), func() { db.Close() }
		}
		out = append(out, namedStore{name: "sql-" + b.name, store: b.store(tb, b.open(tb, dsn)), open: open})
	}
	return out
}

func TestSQLStore(t *testing.T) {
	for _, b := range sqlBackends {
		t.Run(b.name, func(t *testing.T) {
			dsn := b.dsn(t, "idem_sql")
			s := b.store(t, b.open(t, dsn))
			conformance(t, s)
			t.Run("keys and responses", func(t *testing.T) { sqlRoundTrip(t, s) })
			t.Run("two processes", func(t *testing.T) {
				// Two handles with their own pools and stores: what two processes sharing
				// the table do. A second table, so the rows conformance left do not count.
				opt := idem.SQLOptions{Table: "idem_two"}
				sqlTwoProcesses(t, b.store(t, b.open(t, dsn), opt), b.store(t, b.open(t, dsn), opt))
			})
		})
	}
}

// TestSQLStoreFoundRows runs the store contract on MySQL through connections that count
// rows found rather than changed (clientFoundRows=true), where a claim's affected rows do
// not tell whether it won and the store reads the row back: a claim of a new key costs two
// statements there (the upsert and the read), where it costs one on a default connection
// (the store asked the connection once, and remembers).
func TestSQLStoreFoundRows(t *testing.T) {
	b := sqlBackends[1]
	dsn := b.dsn(t, "idem_found_rows")
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	found, nFound := countingDB(t, b, dsn+sep+"clientFoundRows=true")
	s := b.store(t, found)
	conformance(t, s)
	changed, nChanged := countingDB(t, b, dsn)
	for _, c := range []struct {
		what string
		s    *idem.SQL
		n    *atomic.Int64
		want int64
	}{{"clientFoundRows=true", s, nFound, 2}, {"rows changed", b.store(t, changed), nChanged, 1}} {
		ctx := context.Background()
		c.s.Claim(ctx, "found-rows-warm-up", "fp", time.Minute) // the store asks the connection
		before := c.n.Load()
		if tok, _, err := c.s.Claim(ctx, "found-rows-"+c.what, "fp", time.Minute); err != nil || tok == "" {
			t.Fatalf("%s: claim: %q %v", c.what, tok, err)
		}
		if got := c.n.Load() - before; got != c.want {
			t.Errorf("%s: a claim of a new key took %d statements, want %d", c.what, got, c.want)
		}
	}
	sqlTwoProcesses(t, b.store(t, b.open(t, dsn+sep+"clientFoundRows=true"), idem.SQLOptions{Table: "idem_two"}), b.store(t, b.open(t, dsn), idem.SQLOptions{Table: "idem_two"}))
}

// TestSQLStoreBusy races claims on SQLite opened without a busy timeout: the store
// retries the statements SQLite refuses with SQLITE_BUSY.
func TestSQLStoreBusy(t *testing.T) {
	b := sqlBackends[2]
	dsn := "file:" + testdb.SQLitePath(t) + "?_pragma=journal_mode(WAL)"
	sqlTwoProcesses(t, b.store(t, b.open(t, dsn)), b.store(t, b.open(t, dsn)))
}

// sqlRoundTrip checks that keys are bytes compared exactly and that responses come back
// as they were stored.
func sqlRoundTrip(t *testing.T, s *idem.SQL) {
	ctx := context.Background()
	keys := []string{"Case", "case", "CASE ", "nul\x00inside", "\xff\xfe not UTF-8", "é", strings.Repeat("k", idem.MaxSQLKeyLen)}
	tokens := map[string]string{}
	for _, k := range keys {
		tok, held, err := s.Claim(ctx, k, "fp\x00"+k, time.Minute)
		if err != nil || tok == "" || held != nil {
			t.Fatalf("claim %q: %q %+v %v; another key held it", k, tok, held, err)
		}
		tokens[k] = tok
	}
	for _, k := range keys {
		_, held, err := s.Claim(ctx, k, "other", time.Minute)
		if err != nil || held == nil || held.Key != k || held.Fingerprint != "fp\x00"+k || held.State != idem.InProgress {
			t.Fatalf("claim of held %q: %+v %v", k, held, err)
		}
	}
	for i, tc := range []idem.Response{
		{Status: 200},
		{Status: 201, Header: http.Header{}, Body: []byte{}},
		{Status: 202, Header: http.Header{"Set": {"a", "b"}, "Link": {`</x>; rel="next"`}}, Body: []byte("\x00\xff binary")},
	} {
		k := keys[i]
		if err := s.Complete(ctx, k, tokens[k], tc, time.Hour); err != nil {
			t.Fatal(err)
		}
		got, err := s.Get(ctx, k)
		if err != nil {
			t.Fatal(err)
		}
		r := got.Response
		if r == nil || r.Status != tc.Status || string(r.Body) != string(tc.Body) || fmt.Sprint(r.Header) != fmt.Sprint(tc.Header) || (r.Header == nil) != (tc.Header == nil) {
			t.Errorf("key %q: stored %+v, got %+v", k, tc, r)
		}
	}
	long := strings.Repeat("k", idem.MaxSQLKeyLen+1)
	var tooLong *idem.KeyTooLongError
	if _, _, err := s.Claim(ctx, long, "fp", time.Minute); !errors.As(err, &tooLong) || tooLong.Len != idem.MaxSQLKeyLen+1 {
		t.Errorf("claim of a %d-byte key: %v", len(long), err)
	}
}

// sqlTwoProcesses races 50 claims through two stores on one table: on an absent key, on a
// key whose claim timed out, and on a key whose response expired. One claim wins each.
func sqlTwoProcesses(t *testing.T, a, b *idem.SQL) {
	ctx := context.Background()
	stores := []*idem.SQL{a, b}
	prepare := map[string]func(key string){
		"absent": func(string) {},
		"lock timed out": func(key string) {
			if tok, _, err := a.Claim(ctx, key, "dead", time.Millisecond); err != nil || tok == "" {
				t.Fatalf("%q %v", tok, err)
			}
		},
		"response expired": func(key string) {
			tok, _, err := b.Claim(ctx, key, "done", time.Minute)
			if err == nil {
				err = b.Complete(ctx, key, tok, idem.Response{Status: 200}, time.Millisecond)
			}
			if err != nil {
				t.Fatal(err)
			}
		},
	}
	for name, prep := range prepare {
		t.Run(name, func(t *testing.T) {
			key := "race-" + name
			prep(key)
			time.Sleep(5 * time.Millisecond)
			const callers = 50
			tokens := make([]string, callers)
			var wg sync.WaitGroup
			start := make(chan struct{})
			for i := range callers {
				wg.Go(func() {
					<-start
					tok, held, err := stores[i%2].Claim(ctx, key, fmt.Sprint("fp", i), time.Minute)
					if err != nil || (tok == "") == (held == nil) {
						t.Errorf("claim %d: %q %+v %v", i, tok, held, err)
					}
					tokens[i] = tok
				})
			}
			close(start)
			wg.Wait()
			var won []string
			for _, tok := range tokens {
				if tok != "" {
					won = append(won, tok)
				}
			}
			if len(won) != 1 {
				t.Fatalf("%d callers claimed the key, want 1", len(won))
			}
			if err := stores[1].Complete(ctx, key, won[0], idem.Response{Status: 200}, time.Minute); err != nil {
				t.Fatalf("the winner could not complete through the other store: %v", err)
			}
		})
	}
}

// TestSQLStoreClock drives expiry with a fake clock on SQLite: a claim is held until the
// millisecond its lock ends, and a response until its TTL ends.
func TestSQLStoreClock(t *testing.T) {
	b := sqlBackends[2]
	start := time.UnixMilli(1_800_000_000_000)
	var now time.Time
	s := b.store(t, b.open(t, b.dsn(t, "")), idem.SQLOptions{Now: func() time.Time { return now }})
	ctx := context.Background()
	var token string
	do := map[string]func() string{
		"claim": func() string {
			tok, held, err := s.Claim(ctx, "k", "fp", 100*time.Millisecond)
			switch {
			case err != nil:
				return err.Error()
			case held != nil:
				return "held " + held.State.String()
			}
			token = tok
			return "won"
		},
		"complete": func() string { return fmt.Sprint(s.Complete(ctx, "k", token, idem.Response{Status: 200}, time.Second)) },
		"purge": func() string {
			n, err := s.Purge(ctx)
			return fmt.Sprint(n, err)
		},
		"get": func() string {
			r, err := s.Get(ctx, "k")
			if err != nil {
				return err.Error()
			}
			return r.State.String()
		},
	}
	for i, st := range []struct {
		at       time.Duration
		op, want string
	}{
		{0, "claim", "won"},
		{99 * time.Millisecond, "claim", "held in progress"},
		{99 * time.Millisecond, "purge", "0 <nil>"},
		// Over, but not taken yet: the claim is still the token's.
		{100 * time.Millisecond, "get", "in progress"},
		{100 * time.Millisecond, "complete", "<nil>"},
		{1099 * time.Millisecond, "claim", "held completed"},
		{1100 * time.Millisecond, "get", "completed"},
		{1100 * time.Millisecond, "purge", "1 <nil>"},
		{1100 * time.Millisecond, "get", idem.ErrNotFound.Error()},
		{1100 * time.Millisecond, "claim", "won"},
		{1200 * time.Millisecond, "claim", "won"},
		{1200 * time.Millisecond, "complete", "<nil>"},
		{2199 * time.Millisecond, "purge", "0 <nil>"},
		{2200 * time.Millisecond, "claim", "won"},
	} {
		now = start.Add(st.at)
		if got := do[st.op](); got != st.want {
			t.Errorf("step %d: %s at %v: %s, want %s", i, st.op, st.at, got, st.want)
		}
	}
}

func ExampleNewSQL() {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		panic(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // every connection to :memory: is a database of its own
	store, err := idem.NewSQL(db, sqldb.SQLite, idem.SQLOptions{})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	if err := store.CreateTable(ctx); err != nil {
		panic(err)
	}
	token, _, _ := store.Claim(ctx, "tenant-1:order-42", "fingerprint", time.Minute)
	_, held, _ := store.Claim(ctx, "tenant-1:order-42", "fingerprint", time.Minute)
	fmt.Println(held.State)
	store.Complete(ctx, "tenant-1:order-42", token, idem.Response{Status: 201, Body: []byte(`{"id":"o1"}`)}, 24*time.Hour)
	_, held, _ = store.Claim(ctx, "tenant-1:order-42", "fingerprint", time.Minute)
	fmt.Println(held.State, held.Response.Status, string(held.Response.Body))
	// Output:
	// in progress
	// completed 201 {"id":"o1"}
}
