package idrabbit_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/go-sql-driver/mysql"

	"github.com/idgen/idgen/dbtest"
	"github.com/idgen/idgen/runtime/idem"
)

// amqpEnv names the RabbitMQ server of the server-backed tests.
const amqpEnv = "IDGEN_TEST_AMQP_URL"

// amqpURL returns the URL in IDGEN_TEST_AMQP_URL; it skips the test naming the variable
// when unset, and fails it when the server does not answer.
func amqpURL(t testing.TB) string {
	t.Helper()
	url := os.Getenv(amqpEnv)
	if url == "" {
		t.Skip("set " + amqpEnv + " (amqp://guest:guest@127.0.0.1:5672/) to run against RabbitMQ")
	}
	conn, err := amqp.Dial(url)
	if err != nil {
		t.Fatalf("%s is set but RabbitMQ does not answer: %v", amqpEnv, err)
	}
	conn.Close()
	return url
}

// dial connects to url and closes the connection when the test ends.
func dial(t testing.TB, url string) *amqp.Connection {
	t.Helper()
	conn, err := amqp.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// channel opens a channel on conn.
func channel(t testing.TB, conn *amqp.Connection) *amqp.Channel {
	t.Helper()
	ch, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ch.Close() })
	return ch
}

// queueName returns a queue name of this run's own, "idgen_test.<what>.<random>", and
// deletes the queue and its dead-letter queue when the test ends.
func queueName(t testing.TB, url, what string) string {
	t.Helper()
	name := fmt.Sprintf("idgen_test.%s.%s", what, strings.ToLower(rand.Text()[:10]))
	t.Cleanup(func() {
		conn, err := amqp.Dial(url)
		if err != nil {
			t.Errorf("deleting queue %s: %v", name, err)
			return
		}
		defer conn.Close()
		for _, q := range []string{name, name + ".dead"} {
			ch, err := conn.Channel()
			if err != nil {
				t.Errorf("deleting queue %s: %v", q, err)
				return
			}
			if _, err := ch.QueueDelete(q, false, false, false); err != nil {
				t.Errorf("deleting queue %s: %v", q, err)
			}
			ch.Close()
		}
	})
	return name
}

// queueLen returns how many messages are ready in queue q (not counting unacknowledged
// ones).
func queueLen(t testing.TB, conn *amqp.Connection, q string) int {
	t.Helper()
	ch, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	defer ch.Close()
	info, err := ch.QueueDeclarePassive(q, true, false, false, false, nil)
	if err != nil {
		t.Fatalf("inspecting queue %s: %v", q, err)
	}
	return info.Messages
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
