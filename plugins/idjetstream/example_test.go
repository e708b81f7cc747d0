package idjetstream_test

import (
	"context"
	"database/sql"
	"log"
	"os"
	"os/signal"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/idgen/idgen/plugins/idjetstream"
	"github.com/idgen/idgen/runtime/consume"
	"github.com/idgen/idgen/runtime/ledger"
	"github.com/idgen/idgen/runtime/sqldb"
)

// An order consumer whose effect is a row in PostgreSQL, exactly once: the Nats-Msg-Id is
// recorded in the row's own transaction, the message acknowledged after the commit. It
// needs a NATS server with JetStream and a database, so it is compiled, not run.
func ExampleNewConsumer() {
	db, err := sql.Open("pgx", os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	nc, err := nats.Connect(nats.DefaultURL)
	if err != nil {
		log.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if _, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{Name: "ORDERS", Subjects: []string{"orders.>"}}); err != nil {
		log.Fatal(err)
	}
	if _, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{Name: "ORDERS_DEAD", Subjects: []string{"dead.orders"}}); err != nil {
		log.Fatal(err)
	}
	cons, err := js.CreateOrUpdateConsumer(ctx, "ORDERS", jetstream.ConsumerConfig{
		Durable: "orders", AckPolicy: jetstream.AckExplicitPolicy, AckWait: 30 * time.Second, MaxDeliver: 5,
	})
	if err != nil {
		log.Fatal(err)
	}
	dl, err := ledger.New(sqldb.Postgres, ledger.Options{})
	if err != nil {
		log.Fatal(err)
	}
	if err := dl.CreateTable(ctx, db); err != nil {
		log.Fatal(err)
	}
	c, err := idjetstream.NewConsumer(js, cons, consume.OnceTx(db, dl,
		func(ctx context.Context, tx *sql.Tx, d idjetstream.Delivery) error {
			_, err := tx.ExecContext(ctx, "INSERT INTO orders (msg_id, body) VALUES ($1, $2)", d.Key, d.Data())
			return err
		}), idjetstream.Options{DeadLetterSubject: "dead.orders"})
	if err != nil {
		log.Fatal(err)
	}
	if err := c.Run(ctx); err != nil { // until Ctrl-C, then finishes what it received
		log.Fatal(err)
	}
	log.Printf("%+v", c.Stats())
}

// A producer's retry inside the stream's duplicate window is dropped by JetStream; one
// after it is dropped by the consumer's ledger.
func ExamplePublish() {
	nc, err := nats.Connect(nats.DefaultURL)
	if err != nil {
		log.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	for range 2 {
		ack, err := idjetstream.Publish(ctx, js, "orders.new", "order-42", []byte(`{"cents":1999}`))
		if err != nil {
			log.Fatal(err)
		}
		log.Println("duplicate:", ack.Duplicate) // false, then true
	}
}
