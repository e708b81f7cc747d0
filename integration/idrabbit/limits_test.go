package idrabbit_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/idgen/idgen/plugins/idrabbit"
	"github.com/idgen/idgen/runtime/consume"
)

// attempts records the attempts a handler saw, by key.
type attempts struct {
	mu   sync.Mutex
	seen map[string][]int
}

func (a *attempts) add(d idrabbit.Delivery) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.seen == nil {
		a.seen = map[string][]int{}
	}
	a.seen[d.Key] = append(a.seen[d.Key], d.Attempt)
	return len(a.seen[d.Key])
}

func (a *attempts) get(key string) []int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.seen[key])
}

// TestClassicQueuePoison: on a classic queue, which counts no deliveries (no
// x-delivery-count), a message that always fails is tried MaxAttempts times and
// dead-lettered, as on a quorum queue. (It was requeued without end, attempt 1 each time:
// thousands of deliveries, and a warning each, in a few seconds.)
func TestClassicQueuePoison(t *testing.T) {
	url := amqpURL(t)
	conn := dial(t, url)
	q := queueName(t, url, "classic")
	ch := channel(t, conn)
	if _, err := ch.QueueDeclare(q+".dead", true, false, false, false, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := ch.QueueDeclare(q, true, false, false, false, amqp.Table{
		"x-dead-letter-exchange": "", "x-dead-letter-routing-key": q + ".dead"}); err != nil {
		t.Fatal(err)
	}
	var seen attempts
	var calls atomic.Int64
	boom := errors.New("boom")
	c, err := idrabbit.NewConsumer(conn, consume.AtLeastOnce(func(_ context.Context, d idrabbit.Delivery) error {
		seen.add(d)
		calls.Add(1)
		return boom
	}), idrabbit.Options{Queue: q, MaxAttempts: 3, OnError: func(idrabbit.Delivery, error) {}})
	if err != nil {
		t.Fatal(err)
	}
	pub, err := idrabbit.NewPublisher(channel(t, conn))
	if err != nil {
		t.Fatal(err)
	}
	if err := pub.Publish(context.Background(), "", q, "poison", amqp.Publishing{Body: []byte("x")}); err != nil {
		t.Fatal(err)
	}
	run(t, c)
	waitFor(t, "the poison message dead-lettered, or tried 50 times", func() bool {
		return c.Stats().DeadLettered == 1 || calls.Load() >= 50
	})
	if got := seen.get("poison"); !slices.Equal(got, []int{1, 2, 3}) {
		t.Fatalf("the poison message was tried at attempts %v (%d tries), want [1 2 3]", got[:min(len(got), 10)], len(got))
	}
	if dead := deadLetter(t, conn, q); dead.MessageId != "poison" {
		t.Errorf("dead-lettered %q, want poison", dead.MessageId)
	}
}

// TestForgedDeliveryCount: a producer's x-delivery-count on a first delivery (one RabbitMQ
// does not mark redelivered) is not RabbitMQ's count: the message is at its first attempt,
// and a failure is tried again instead of dead-lettering it at once.
func TestForgedDeliveryCount(t *testing.T) {
	url := amqpURL(t)
	conn := dial(t, url)
	q := queueName(t, url, "forged")
	if _, _, err := idrabbit.DeclareQueue(channel(t, conn), q, idrabbit.QueueOptions{}); err != nil {
		t.Fatal(err)
	}
	var seen attempts
	c, err := idrabbit.NewConsumer(conn, consume.AtLeastOnce(func(_ context.Context, d idrabbit.Delivery) error {
		if seen.add(d) == 1 {
			return errors.New("a passing failure")
		}
		return nil
	}), idrabbit.Options{Queue: q, OnError: func(idrabbit.Delivery, error) {}})
	if err != nil {
		t.Fatal(err)
	}
	pub, err := idrabbit.NewPublisher(channel(t, conn))
	if err != nil {
		t.Fatal(err)
	}
	if err := pub.Publish(context.Background(), "", q, "forged", amqp.Publishing{Body: []byte("x"),
		Headers: amqp.Table{"x-delivery-count": int64(100)}}); err != nil {
		t.Fatal(err)
	}
	run(t, c)
	waitFor(t, "the message processed or dead-lettered", func() bool {
		n := c.Stats()
		return n.Processed+n.DeadLettered == 1
	})
	if n := c.Stats(); n.Processed != 1 || n.DeadLettered != 0 || !slices.Equal(seen.get("forged"), []int{1, 2}) {
		t.Errorf("stats %+v, attempts %v; want processed at its second attempt, after [1 2]", n, seen.get("forged"))
	}
}

// TestInFlightBytes: 8 messages of 4 MiB, and a consumer with the default
// MaxInFlightBytes (16 MiB) whose handlers block after the first message: RabbitMQ sends
// no more than 4 at a time (16 MiB of bodies), not the 7 left that Prefetch (64) and
// Concurrency (8) would take, and the heap grows by about that much. Then every message
// is processed.
func TestInFlightBytes(t *testing.T) {
	url := amqpURL(t)
	conn := dial(t, url)
	q := queueName(t, url, "bytes")
	if _, _, err := idrabbit.DeclareQueue(channel(t, conn), q, idrabbit.QueueOptions{}); err != nil {
		t.Fatal(err)
	}
	const (
		n     = 8
		size  = 4 << 20
		bound = 16 << 20 // idrabbit.DefaultMaxInFlightBytes
	)
	pub, err := idrabbit.NewPublisher(channel(t, conn))
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		body := make([]byte, size)
		body[0] = byte(i)
		if err := pub.Publish(context.Background(), "", q, fmt.Sprintf("big%d", i), amqp.Publishing{Body: body}); err != nil {
			t.Fatal(err)
		}
	}
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	release := make(chan struct{})
	var entered atomic.Int64
	c, err := idrabbit.NewConsumer(conn, consume.AtLeastOnce(func(ctx context.Context, d idrabbit.Delivery) error {
		if entered.Add(1) > 1 {
			<-release
		}
		return nil
	}), idrabbit.Options{Queue: q})
	if err != nil {
		t.Fatal(err)
	}
	stop := run(t, c)
	defer stop()
	released := false
	defer func() {
		if !released {
			close(release)
		}
	}()
	// The first processed; then as many as the bound lets in, blocked in their handlers.
	waitFor(t, "the first message processed and 4 more in their handlers", func() bool { return entered.Load() >= 5 })
	ready := queueLen(t, conn, q)
	runtime.GC()
	var held runtime.MemStats
	runtime.ReadMemStats(&held)
	inFlight := n - 1 - ready
	t.Logf("%d messages of %d MiB: %d received and held at once, %d left in the queue; the heap grew by %.1f MiB",
		n, size>>20, inFlight, ready, float64(int64(held.HeapAlloc)-int64(before.HeapAlloc))/(1<<20))
	if inFlight > bound/size {
		t.Errorf("%d messages of %d MiB held at once (%d MiB), want at most %d MiB", inFlight, size>>20, inFlight*size>>20, bound>>20)
	}
	close(release)
	released = true
	waitFor(t, "every message processed", func() bool { return c.Stats().Processed == n })
}
