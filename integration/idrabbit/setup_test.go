package idrabbit_test

import (
	"crypto/rand"
	"fmt"
	"os"
	"strings"
	"testing"

	amqp "github.com/rabbitmq/amqp091-go"
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

// deadLetter waits for the next message in q's dead-letter queue and takes it. The
// consumer counts a dead letter when it rejects the delivery; RabbitMQ routes it to the
// dead-letter exchange after that, so the queue may still be empty when Stats says so.
func deadLetter(t *testing.T, conn *amqp.Connection, q string) amqp.Delivery {
	t.Helper()
	ch := channel(t, conn)
	var dead amqp.Delivery
	waitFor(t, "a message in "+q+".dead", func() bool {
		d, ok, err := ch.Get(q+".dead", true)
		if err != nil {
			t.Fatalf("the dead-letter queue: %v", err)
		}
		dead = d
		return ok
	})
	return dead
}
