package idjetstream_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/go-sql-driver/mysql"

	"github.com/idgen/idgen/dbtest"
	"github.com/idgen/idgen/runtime/idem"
)

// natsEnv names the NATS server (with JetStream) of the server-backed tests.
const natsEnv = "IDGEN_TEST_NATS_URL"

// natsURL returns the URL in IDGEN_TEST_NATS_URL; it skips the test naming the variable
// when unset, and fails it when the server does not answer or has no JetStream.
func natsURL(t testing.TB) string {
	t.Helper()
	url := os.Getenv(natsEnv)
	if url == "" {
		t.Skip("set " + natsEnv + " (nats://127.0.0.1:4222) to run against NATS JetStream")
	}
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatalf("%s is set but NATS does not answer: %v", natsEnv, err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := js.AccountInfo(ctx); err != nil {
		t.Fatalf("%s is set but the server has no JetStream (start it with -js): %v", natsEnv, err)
	}
	return url
}

// connect connects to url, closing the connection when the test ends.
func connect(t testing.TB, url string) (*nats.Conn, jetstream.JetStream) {
	t.Helper()
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return nc, js
}

// stream creates a stream of this run's own, "IDGEN_TEST_<WHAT>_<random>", on the subject
// "idgen_test.<what>.<random>" (returned), with cfg's other settings, and deletes it when
// the test ends.
func stream(t testing.TB, js jetstream.JetStream, what string, cfg jetstream.StreamConfig) (jetstream.Stream, string) {
	t.Helper()
	r := strings.ToLower(rand.Text()[:10])
	cfg.Name = strings.ToUpper("idgen_test_" + what + "_" + r)
	subject := "idgen_test." + what + "." + r
	cfg.Subjects = []string{subject}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := js.CreateStream(ctx, cfg)
	if err != nil {
		t.Fatalf("creating stream %s: %v", cfg.Name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := js.DeleteStream(ctx, cfg.Name); err != nil {
			t.Errorf("deleting stream %s: %v", cfg.Name, err)
		}
	})
	return s, subject
}

// consumerConfig is the durable consumer the tests use: explicit acks, with AckWait and
// MaxDeliver given.
func consumerConfig(name string, ackWait time.Duration, maxDeliver int) jetstream.ConsumerConfig {
	return jetstream.ConsumerConfig{Durable: name, AckPolicy: jetstream.AckExplicitPolicy, AckWait: ackWait, MaxDeliver: maxDeliver}
}

// store is a fresh database of the effect store under test, with the ledger's table and
// the effect table "effects" (msg_key, pid) created; effects has no unique key, so a
// duplicate effect would show as two rows.
type store struct {
	name    string // postgres, mariadb
	driver  string // database/sql driver
	dsn     string
	dialect idem.Dialect
	db      *sql.DB
	ledger  *idem.Ledger
}

// stores lists the effect stores the tests run on.
var stores = []struct {
	name string
	open func(t testing.TB, db string) store
}{
	{"postgres", func(t testing.TB, db string) store {
		return openStore(t, "postgres", "pgx", dbtest.Postgres(t, db), idem.Postgres)
	}},
	{"mariadb", func(t testing.TB, db string) store {
		// interpolateParams saves a prepare round trip per statement, which the ledger's
		// extra statement would otherwise pay twice.
		cfg, err := mysql.ParseDSN(dbtest.MySQL(t, db))
		if err != nil {
			t.Fatal(err)
		}
		cfg.InterpolateParams = true
		return openStore(t, "mariadb", "mysql", cfg.FormatDSN(), idem.MySQL)
	}},
}

func openStore(t testing.TB, name, driver, dsn string, dialect idem.Dialect) store {
	t.Helper()
	s := store{name: name, driver: driver, dsn: dsn, dialect: dialect}
	s.db = openDB(t, driver, dsn)
	var err error
	if s.ledger, err = idem.NewLedger(dialect, idem.LedgerOptions{}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.ledger.CreateTable(ctx, s.db); err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.ExecContext(ctx, "CREATE TABLE effects (msg_key VARCHAR(64) NOT NULL, pid INTEGER NOT NULL)"); err != nil {
		t.Fatal(err)
	}
	return s
}

func openDB(t testing.TB, driver, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxIdleConns(16)
	t.Cleanup(func() { db.Close() })
	return db
}

// insertEffect is the effect of every test's handler: one row for the message.
func insertEffect(dialect idem.Dialect) string {
	if dialect == idem.Postgres {
		return "INSERT INTO effects (msg_key, pid) VALUES ($1, $2)"
	}
	return "INSERT INTO effects (msg_key, pid) VALUES (?, ?)"
}

// effectCounts returns the effect table's rows and distinct keys.
func effectCounts(t testing.TB, db *sql.DB) (rows, keys int) {
	t.Helper()
	if err := db.QueryRow("SELECT COUNT(*), COUNT(DISTINCT msg_key) FROM effects").Scan(&rows, &keys); err != nil {
		t.Fatal(err)
	}
	return rows, keys
}

// count returns SELECT COUNT(*) FROM table.
func count(t testing.TB, db *sql.DB, table string) int {
	t.Helper()
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM " + table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
