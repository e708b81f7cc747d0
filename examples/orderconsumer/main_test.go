package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/idgen/idgen/plugins/idrabbit"
)

// amqpEnv names the RabbitMQ server of the test.
const amqpEnv = "IDGEN_TEST_AMQP_URL"

// TestConsumeAndScrape publishes 200 orders, each twice (a producer's retry with the same
// message ID), and one that is not an order; runs the service until every order is
// written; and scrapes /metrics over HTTP: 200 processed, 200 duplicates, the bad
// message failed twice and dead-lettered at its third delivery, and the IDs behind the
// order numbers.
func TestConsumeAndScrape(t *testing.T) {
	url := os.Getenv(amqpEnv)
	if url == "" {
		t.Skip("set " + amqpEnv + " (amqp://guest:guest@127.0.0.1:5672/) to run against RabbitMQ")
	}
	queue := "idgen_test.orderconsumer." + strings.ToLower(rand.Text()[:10])
	cfg := config{AMQP: url, Queue: queue, DB: filepath.Join(t.TempDir(), "orders.db")}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := newService(ctx, cfg)
	if err != nil {
		t.Fatalf("%s is set: %v", amqpEnv, err)
	}
	defer s.Close()
	t.Cleanup(func() { deleteQueues(t, url, queue, queue+".dead") })

	const n = 200
	publish(t, url, queue, n)
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()

	srv := httptest.NewServer(routes(s)) // main's routes
	defer srv.Close()
	var m map[string]float64
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		m = scrape(t, srv.URL+"/metrics")
		if m["processed"] >= n && m["duplicate"] >= n && m["dead_lettered"] >= 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 60 s the metrics say %v", m)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	var rows, distinct int64
	if err := s.db.Raw("SELECT count(*), count(DISTINCT no) FROM orders").Row().Scan(&rows, &distinct); err != nil {
		t.Fatal(err)
	}
	if rows != n || distinct != n {
		t.Errorf("orders: %d rows, %d distinct numbers, want %d", rows, distinct, n)
	}
	var no string
	if err := s.db.Raw("SELECT no FROM orders LIMIT 1").Row().Scan(&no); err != nil || !strings.HasPrefix(no, "ORD") {
		t.Errorf("an order number: %q (%v), want ORD...", no, err)
	}
	t.Logf("/metrics: %v", m)
	// Exact where nothing else can happen; at least where a transaction SQLite aborted
	// for contention (run again, with a new OrderNo) or a redelivery may add to the count.
	if m["processed"] != n || m["dead_lettered"] != 1 {
		t.Errorf("/metrics: %v processed and %v dead-lettered, want %d and 1", m["processed"], m["dead_lettered"], n)
	}
	if m["duplicate"] < n || m["failed"] < 2 {
		t.Errorf("/metrics: %v duplicates and %v failed, want at least %d and 2", m["duplicate"], m["failed"], n)
	}
	if m["ids"] < n {
		t.Errorf("/metrics: idgen_ids_issued_total = %v, want at least %d (one per order written)", m["ids"], n)
	}
}

// publish puts n orders on queue, each twice with the same message ID, and a message that
// is not an order.
func publish(t *testing.T, url, queue string, n int) {
	t.Helper()
	conn, err := amqp.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ch, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	defer ch.Close()
	p, err := idrabbit.NewPublisher(ch)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var pending []*amqp.DeferredConfirmation
	for i := range n {
		for range 2 {
			dc, err := p.PublishAsync(ctx, "", queue, fmt.Sprintf("order-%d", i),
				amqp.Publishing{ContentType: "application/json", Body: fmt.Appendf(nil, `{"cents":%d}`, 100+i)})
			if err != nil {
				t.Fatal(err)
			}
			pending = append(pending, dc)
		}
	}
	if err := p.Publish(ctx, "", queue, "not-an-order", amqp.Publishing{Body: []byte("{")}); err != nil {
		t.Fatal(err)
	}
	for _, dc := range pending {
		if ok, err := dc.WaitContext(ctx); !ok || err != nil {
			t.Fatalf("publish not confirmed: %v", err)
		}
	}
}

// scrape GETs the Prometheus text at url and returns the deliveries by outcome (summed
// over redelivered or not) and, under "ids", the IDs issued.
func scrape(t *testing.T, url string) map[string]float64 {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET /metrics: %s\n%s", resp.Status, b)
	}
	m := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		name, rest, _ := strings.Cut(line, "{")
		labels, value, ok := strings.Cut(rest, "} ")
		if !ok {
			continue
		}
		v, err := strconv.ParseFloat(value, 64)
		if err != nil {
			t.Fatalf("metric line %q: %v", line, err)
		}
		switch name {
		case "idgen_consumer_messages_total":
			for _, l := range strings.Split(labels, ",") {
				if k, o, _ := strings.Cut(l, "="); k == "idgen_consumer_outcome" {
					m[strings.Trim(o, `"`)] += v
				}
			}
		case "idgen_ids_issued_total":
			m["ids"] += v
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return m
}

// deleteQueues deletes the test's queues.
func deleteQueues(t *testing.T, url string, queues ...string) {
	conn, err := amqp.Dial(url)
	if err != nil {
		t.Errorf("deleting queues %v: %v", queues, err)
		return
	}
	defer conn.Close()
	for _, q := range queues {
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
}
