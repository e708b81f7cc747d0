package idrabbit_test

import (
	"context"
	"database/sql"
	"log"
	"os"
	"os/signal"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/idgen/idgen/plugins/idrabbit"
	"github.com/idgen/idgen/runtime/consume"
	"github.com/idgen/idgen/runtime/ledger"
	"github.com/idgen/idgen/runtime/sqldb"
)

// An order consumer whose effect is a row in PostgreSQL, exactly once: the message ID is
// recorded in the row's own transaction, the delivery acknowledged after the commit. It
// needs a RabbitMQ and a database, so it is compiled, not run.
func ExampleNewConsumer() {
	db, err := sql.Open("pgx", os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	conn, err := amqp.Dial("amqp://guest:guest@127.0.0.1:5672/")
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	ch, err := conn.Channel()
	if err != nil {
		log.Fatal(err)
	}
	// A quorum queue counts deliveries; a message failing 5 times goes to orders.dead.
	if _, _, err := idrabbit.DeclareQueue(ch, "orders", idrabbit.QueueOptions{}); err != nil {
		log.Fatal(err)
	}
	dl, err := ledger.New(sqldb.Postgres, ledger.Options{})
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := dl.CreateTable(ctx, db); err != nil {
		log.Fatal(err)
	}
	c, err := idrabbit.NewConsumer(conn, consume.OnceTx(db, dl,
		func(ctx context.Context, tx *sql.Tx, d idrabbit.Delivery) error {
			_, err := tx.ExecContext(ctx, "INSERT INTO orders (msg_id, body) VALUES ($1, $2)", d.Key, d.Body)
			return err
		}), idrabbit.Options{Queue: "orders", MaxAttempts: 5})
	if err != nil {
		log.Fatal(err)
	}
	if err := c.Run(ctx); err != nil { // until Ctrl-C, then finishes what it received
		log.Fatal(err)
	}
	log.Printf("%+v", c.Stats())
}

// A producer retrying a publish it is not sure of: the retry carries the same message ID,
// so the consumer's Processor runs the effect once.
func ExamplePublisher() {
	conn, err := amqp.Dial("amqp://guest:guest@127.0.0.1:5672/")
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	ch, err := conn.Channel()
	if err != nil {
		log.Fatal(err)
	}
	pub, err := idrabbit.NewPublisher(ch)
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	msg := amqp.Publishing{ContentType: "application/json", Body: []byte(`{"cents":1999}`)}
	for attempt := 0; attempt < 3; attempt++ {
		if err = pub.Publish(ctx, "", "orders", "order-42", msg); err == nil {
			break
		}
	}
	if err != nil {
		log.Fatal(err)
	}
}
