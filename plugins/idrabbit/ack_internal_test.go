package idrabbit

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/idgen/idgen/runtime/consume"
)

// acks records what a Consumer sends back for each delivery tag, as the channel's
// Acknowledger would send it to RabbitMQ.
type acks struct {
	mu   sync.Mutex
	sent map[uint64]string
}

func (a *acks) record(tag uint64, what string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.sent[tag] = what
	return nil
}

func (a *acks) Ack(tag uint64, multiple bool) error {
	return a.record(tag, fmt.Sprintf("ack multiple=%v", multiple))
}

func (a *acks) Nack(tag uint64, multiple, requeue bool) error {
	return a.record(tag, fmt.Sprintf("nack multiple=%v requeue=%v", multiple, requeue))
}

func (a *acks) Reject(tag uint64, requeue bool) error {
	return a.record(tag, fmt.Sprintf("reject requeue=%v", requeue))
}

// outcomes is a consume.Observer that remembers what it heard.
type outcomes struct {
	mu    sync.Mutex
	heard []consume.Outcome
}

func (o *outcomes) Delivered(out consume.Outcome, _ bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.heard = append(o.heard, out)
}

// TestAcknowledgements checks what each outcome answers RabbitMQ with, and what a
// worker tells the dispatcher. A failure below MaxAttempts is neither rejected nor nacked:
// the Consumer counts the attempts itself and keeps the delivery for its next try, since
// RabbitMQ counts only in quorum queues (and from 4.3 not a nack), so a classic queue
// would requeue a poison message without end. A producer's x-delivery-count on a first
// delivery is not RabbitMQ's and is ignored. A store that is unavailable pauses and tries
// again without counting.
func TestAcknowledgements(t *testing.T) {
	boom := errors.New("boom")
	calls := map[string]int{}
	proc := func(_ context.Context, key string, d Delivery) (bool, error) {
		if want := "10:rabbitmq:q:" + d.Key; key != want {
			return false, fmt.Errorf("recorded key %q, want %q", key, want)
		}
		calls[d.Key]++
		switch d.Key {
		case "new":
			return true, nil
		case "done":
			return false, nil
		case "outage":
			if calls[d.Key] == 1 {
				return false, fmt.Errorf("committing: %w", consume.ErrUnavailable)
			}
			return true, nil
		}
		return false, boom
	}
	cases := []struct {
		name    string
		key     string
		attempt int // x-delivery-count + 1 on a redelivery
		forged  int // a producer's x-delivery-count on a first delivery
		noKey   NoKeyAction
		want    string            // what RabbitMQ is sent, "" for nothing
		again   int               // the attempt of the next try the dispatcher is asked for, 0 for none
		heard   []consume.Outcome // what the Observer hears
		failed  bool              // OnError hears a *FailedError wrapping boom
	}{
		{"processed", "new", 1, 0, NoKeyReject, "ack multiple=false", 0, []consume.Outcome{consume.Processed}, false},
		{"duplicate", "done", 2, 0, NoKeyReject, "ack multiple=false", 0, []consume.Outcome{consume.Duplicate}, false},
		{"failed/first", "bad", 1, 0, NoKeyReject, "", 2, []consume.Outcome{consume.Failed}, true},
		{"failed/before-limit", "bad", 2, 0, NoKeyReject, "", 3, []consume.Outcome{consume.Failed}, true},
		{"failed/at-limit", "bad", 3, 0, NoKeyReject, "reject requeue=false", 0, []consume.Outcome{consume.DeadLettered}, true},
		{"failed/past-limit", "bad", 7, 0, NoKeyReject, "reject requeue=false", 0, []consume.Outcome{consume.DeadLettered}, true},
		{"failed/forged-count", "bad", 1, 10, NoKeyReject, "", 2, []consume.Outcome{consume.Failed}, true},
		{"unavailable", "outage", 1, 0, NoKeyReject, "ack multiple=false", 0, []consume.Outcome{consume.Paused, consume.Processed}, false},
		{"nokey/reject", "", 1, 0, NoKeyReject, "reject requeue=false", 0, []consume.Outcome{consume.NoKey}, false},
		{"nokey/drop", "", 1, 0, NoKeyDrop, "ack multiple=false", 0, []consume.Outcome{consume.NoKey}, false},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := &acks{sent: map[uint64]string{}}
			heard := &outcomes{}
			var reported []error
			c := newConsumer(nil, proc, Options{
				Queue: "q", MaxAttempts: 3, NoKey: tc.noKey, Observer: heard, RetryDelay: 100 * time.Millisecond,
				Gate:    &consume.Gate{MinPause: time.Millisecond, MaxPause: time.Millisecond},
				OnError: func(_ Delivery, err error) { reported = append(reported, err) },
			})
			raw := amqp.Delivery{Acknowledger: a, DeliveryTag: uint64(i + 1), MessageId: tc.key, Body: []byte("body")}
			if tc.attempt > 1 {
				raw.Redelivered = true
				raw.Headers = amqp.Table{"x-delivery-count": int64(tc.attempt - 1)}
			}
			if tc.forged > 0 {
				raw.Headers = amqp.Table{"x-delivery-count": int64(tc.forged)}
			}
			d := c.delivery(raw)
			if d.Attempt != tc.attempt {
				t.Fatalf("Attempt = %d, want %d", d.Attempt, tc.attempt)
			}
			r := &run{c: c, events: make(chan event, 4)}
			ctx := context.Background()
			r.handle(ctx, ctx, d)

			if got := a.sent[raw.DeliveryTag]; got != tc.want {
				t.Errorf("sent %q, want %q", got, tc.want)
			}
			var ev event
			select {
			case ev = <-r.events:
			default:
				t.Fatal("the dispatcher was told nothing")
			}
			switch {
			case tc.again == 0 && (ev.again || ev.back || ev.settled != 4):
				t.Errorf("told the dispatcher %+v, want the delivery settled (4 bytes)", ev)
			case tc.again != 0 && (!ev.again || ev.d.Attempt != tc.again || ev.after != 100*time.Millisecond<<(tc.attempt-1)):
				t.Errorf("told the dispatcher %+v, want a next try at attempt %d after %v", ev, tc.again, 100*time.Millisecond<<(tc.attempt-1))
			}
			if !slices.Equal(heard.heard, tc.heard) {
				t.Errorf("Observer heard %v, want %v", heard.heard, tc.heard)
			}
			var fe *FailedError
			switch {
			case tc.failed:
				if len(reported) != 1 || !errors.As(reported[0], &fe) || !errors.Is(reported[0], boom) ||
					fe.Attempt != tc.attempt || fe.DeadLettered != (tc.want == "reject requeue=false") || fe.Paused {
					t.Errorf("OnError heard %v, want a *FailedError of attempt %d wrapping boom", reported, tc.attempt)
				}
			case tc.key == "outage":
				if len(reported) != 1 || !errors.As(reported[0], &fe) || !fe.Paused || !errors.Is(reported[0], consume.ErrUnavailable) {
					t.Errorf("OnError heard %v, want a paused *FailedError", reported)
				}
			case tc.key == "":
				var nk *consume.NoKeyError
				if len(reported) != 1 || !errors.As(reported[0], &nk) {
					t.Errorf("OnError heard %v, want a *consume.NoKeyError", reported)
				}
			case len(reported) != 0:
				t.Errorf("OnError heard %v, want nothing", reported)
			}
		})
	}
}

// TestWindow: the prefetch that keeps the bodies held under MaxInFlightBytes.
func TestWindow(t *testing.T) {
	for _, tc := range []struct {
		max   int64
		sizes []int64
		want  int
	}{
		{16 << 20, nil, 1},                         // nothing seen yet: one at a time
		{16 << 20, []int64{100}, 64},               // small bodies: Prefetch
		{16 << 20, []int64{0}, 64},                 // empty bodies
		{8 << 20, []int64{4 << 20}, 2},             // two fit
		{8 << 20, []int64{3 << 20}, 2},             // 2.67 fit: rounded down to a power of two
		{8 << 20, []int64{1 << 20, 4 << 20}, 2},    // the largest recent counts
		{8 << 20, []int64{1 << 20}, 8},             //
		{8 << 20, []int64{5 << 20}, 1},             // one fits
		{8 << 20, []int64{20 << 20}, 1},            // none fits: one at a time anyway
		{-1, nil, 64},                              // no bound
		{1 << 30, []int64{1 << 20, 1 << 20}, 64},   // Prefetch caps it
		{24 << 20, []int64{1 << 20, 1 << 20}, 16},  // 24 fit: 16
		{24 << 20, []int64{3 << 20, 10, 100}, 8},   //
		{24 << 20, []int64{25 << 20, 10, 100}, 1},  //
		{100 << 20, []int64{1 << 20, 10, 100}, 64}, // not a power of two, but Prefetch
	} {
		c := newConsumer(nil, func(context.Context, string, Delivery) (bool, error) { return true, nil },
			Options{Queue: "q", MaxInFlightBytes: tc.max})
		r := &run{c: c, recent: make([]int64, 0, c.opts.Prefetch)}
		r.recent = append(r.recent, tc.sizes...)
		if got := r.window(); got != tc.want {
			t.Errorf("MaxInFlightBytes %d, sizes %v: window %d, want %d", tc.max, tc.sizes, got, tc.want)
		}
	}
}
