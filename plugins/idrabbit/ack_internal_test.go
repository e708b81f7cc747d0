package idrabbit

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

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

// TestAcknowledgements checks the method each outcome answers RabbitMQ with. A failure
// must be a basic.reject: RabbitMQ 4.3 and later count only failed deliveries (a reject,
// a closed channel) in x-delivery-count, so a failure sent back as a nack would never
// reach MaxAttempts and would be requeued forever. The broker on the test machine (3.x)
// counts both, which is why this is checked at the Acknowledger rather than on the server.
func TestAcknowledgements(t *testing.T) {
	boom := errors.New("boom")
	proc := func(_ context.Context, key string, _ Delivery) (bool, error) {
		switch key {
		case "new":
			return true, nil
		case "done":
			return false, nil
		}
		return false, boom
	}
	cases := []struct {
		name    string
		key     string
		attempt int // x-delivery-count + 1
		noKey   NoKeyAction
		want    string
		outcome consume.Outcome
		failed  bool // OnError hears a *FailedError wrapping boom
	}{
		{"processed", "new", 1, NoKeyReject, "ack multiple=false", consume.Processed, false},
		{"duplicate", "done", 2, NoKeyReject, "ack multiple=false", consume.Duplicate, false},
		{"failed/first", "bad", 1, NoKeyReject, "reject requeue=true", consume.Failed, true},
		{"failed/before-limit", "bad", 2, NoKeyReject, "reject requeue=true", consume.Failed, true},
		{"failed/at-limit", "bad", 3, NoKeyReject, "reject requeue=false", consume.DeadLettered, true},
		{"failed/past-limit", "bad", 7, NoKeyReject, "reject requeue=false", consume.DeadLettered, true},
		{"nokey/reject", "", 1, NoKeyReject, "reject requeue=false", consume.NoKey, false},
		{"nokey/drop", "", 1, NoKeyDrop, "ack multiple=false", consume.NoKey, false},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := &acks{sent: map[uint64]string{}}
			heard := &outcomes{}
			var reported []error
			c := &Consumer{proc: proc, opts: Options{
				Queue: "q", MaxAttempts: 3, NoKey: tc.noKey, Observer: heard,
				OnError: func(_ Delivery, err error) { reported = append(reported, err) },
			}}
			raw := amqp.Delivery{Acknowledger: a, DeliveryTag: uint64(i + 1), MessageId: tc.key}
			if tc.attempt > 1 {
				raw.Redelivered = true
				raw.Headers = amqp.Table{"x-delivery-count": int64(tc.attempt - 1)}
			}
			d := c.delivery(raw)
			if d.Attempt != tc.attempt {
				t.Fatalf("Attempt = %d, want %d", d.Attempt, tc.attempt)
			}
			c.handle(context.Background(), d)

			if got := a.sent[raw.DeliveryTag]; got != tc.want {
				t.Errorf("sent %q, want %q", got, tc.want)
			}
			if len(heard.heard) != 1 || heard.heard[0] != tc.outcome {
				t.Errorf("Observer heard %v, want [%v]", heard.heard, tc.outcome)
			}
			if n := c.Stats(); n.Processed+n.Duplicate+n.Failed+n.DeadLettered+n.NoKey != 1 {
				t.Errorf("Stats = %+v, want one outcome", n)
			}
			var fe *FailedError
			switch {
			case tc.failed:
				if len(reported) != 1 || !errors.As(reported[0], &fe) || !errors.Is(reported[0], boom) ||
					fe.Attempt != tc.attempt || fe.DeadLettered != (tc.outcome == consume.DeadLettered) {
					t.Errorf("OnError heard %v, want a *FailedError of attempt %d wrapping boom", reported, tc.attempt)
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
