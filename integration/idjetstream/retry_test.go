package idjetstream_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/idgen/idgen/plugins/idjetstream"
	"github.com/idgen/idgen/runtime/consume"
)

// attemptTimes records when each delivery of each key reached the Processor.
type attemptTimes struct {
	mu sync.Mutex
	at map[string][]time.Time
}

func (a *attemptTimes) add(key string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.at == nil {
		a.at = map[string][]time.Time{}
	}
	a.at[key] = append(a.at[key], time.Now())
}

func (a *attemptTimes) get(key string) []time.Time {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]time.Time(nil), a.at[key]...)
}

// TestRetryDelay: a failed message comes back after Options.RetryDelay, then twice that,
// never at once (a plain Nak is redelivered immediately: with an unlimited MaxDeliver, a
// message that always fails would spin); a consumer's BackOff is used when it has one.
// A delayed Nak is timed from the Nak, which the Processor's return precedes, so its gaps
// are lower bounds JetStream guarantees whatever the machine's speed. A BackOff is timed
// from JetStream's send of the delivery, which reaches the Processor some milliseconds
// later, by a delay that varies per delivery: its gaps are checked less the slack of that
// delay. (On a consumer with BackOff, a delayed Nak is timed against the BackOff by
// JetStream 2.9: NakWithDelay(200ms) at the second delivery came back after 10 ms.)
func TestRetryDelay(t *testing.T) {
	url := natsURL(t)
	for _, tc := range []struct {
		name    string
		backOff []time.Duration
		opts    idjetstream.Options
		want    []time.Duration // the least gaps between deliveries 1-2 and 2-3
		slack   time.Duration   // how much less the gaps may be
	}{
		{"RetryDelay", nil, idjetstream.Options{RetryDelay: 300 * time.Millisecond},
			[]time.Duration{300 * time.Millisecond, 600 * time.Millisecond}, 0},
		{"BackOff", []time.Duration{700 * time.Millisecond, 300 * time.Millisecond}, idjetstream.Options{RetryDelay: time.Minute},
			[]time.Duration{700 * time.Millisecond, 300 * time.Millisecond}, 100 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, js := connect(t, url)
			str, subject := stream(t, js, "retry", jetstream.StreamConfig{})
			ctx := context.Background()
			cfg := consumerConfig("retry", 30*time.Second, 3)
			if len(tc.backOff) > 0 {
				cfg.MaxDeliver = len(tc.backOff) + 1 // JetStream's rule; the test stops at 3
			}
			cfg.BackOff = tc.backOff
			cons, err := str.CreateOrUpdateConsumer(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			var times attemptTimes
			boom := errors.New("boom")
			proc := consume.AtLeastOnce(func(ctx context.Context, d idjetstream.Delivery) error {
				times.add(d.Key)
				return boom
			})
			opts := tc.opts
			opts.KeyHeader = "X-Key"
			opts.OnError = func(idjetstream.Delivery, error) {}
			c, err := idjetstream.NewConsumer(js, cons, proc, opts)
			if err != nil {
				t.Fatal(err)
			}
			publishKeyed(t, js, subject, "k")
			run(t, c)
			waitFor(t, "three deliveries and the termination", func() bool { return c.Stats().DeadLettered == 1 })
			at := times.get("k")
			if len(at) != 3 {
				t.Fatalf("%d deliveries, want 3", len(at))
			}
			for i, least := range tc.want {
				if gap := at[i+1].Sub(at[i]); gap < least-tc.slack {
					t.Errorf("delivery %d came %v after delivery %d, want at least %v (less %v)", i+2, gap, i+1, least, tc.slack)
				}
			}
		})
	}
}

// TestNoKeyNakWaits: NoKeyNak leaves a keyless message for AckWait, as documented; with an
// unlimited MaxDeliver it used to come back at once, thousands of times a second.
func TestNoKeyNakWaits(t *testing.T) {
	url := natsURL(t)
	_, js := connect(t, url)
	str, subject := stream(t, js, "nokeynak", jetstream.StreamConfig{})
	ctx := context.Background()
	const ackWait = time.Second
	cons, err := str.CreateOrUpdateConsumer(ctx, consumerConfig("nokeynak", ackWait, -1))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var seen []time.Time
	c, err := idjetstream.NewConsumer(js, cons, consume.AtLeastOnce(func(context.Context, idjetstream.Delivery) error {
		t.Error("a keyless message was processed")
		return nil
	}), idjetstream.Options{NoKey: idjetstream.NoKeyNak, OnError: func(idjetstream.Delivery, error) {
		mu.Lock()
		seen = append(seen, time.Now())
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := js.PublishMsg(ctx, &nats.Msg{Subject: subject, Data: []byte("no key")}); err != nil {
		t.Fatal(err)
	}
	run(t, c)
	waitFor(t, "the keyless message seen three times", func() bool { return c.Stats().NoKey >= 3 })
	mu.Lock()
	defer mu.Unlock()
	for i := 1; i < len(seen); i++ {
		if gap := seen[i].Sub(seen[i-1]); gap < ackWait {
			t.Fatalf("delivery %d of the keyless message came %v after the one before, want at least AckWait (%v)", i+1, gap, ackWait)
		}
	}
}

// TestHeldInProgress: a message Run has taken from the iterator while every worker is busy
// is kept in progress as it waits, so a wait longer than AckWait does not redeliver it to
// another consumer of the same durable.
// (The heartbeat used to start only when a worker began the message.) The test lets time
// pass on purpose: 2.5 AckWaits, against a heartbeat every half AckWait.
func TestHeldInProgress(t *testing.T) {
	url := natsURL(t)
	_, js := connect(t, url)
	str, subject := stream(t, js, "held", jetstream.StreamConfig{})
	ctx := context.Background()
	const ackWait = 2 * time.Second
	cons, err := str.CreateOrUpdateConsumer(ctx, consumerConfig("held", ackWait, 5))
	if err != nil {
		t.Fatal(err)
	}
	var times attemptTimes
	started, release := make(chan struct{}), make(chan struct{})
	proc := consume.AtLeastOnce(func(ctx context.Context, d idjetstream.Delivery) error {
		times.add(d.Key)
		if d.Key == "first" && d.Attempt == 1 {
			close(started)
			<-release // the only worker is busy: "second" waits in Run's hand
		}
		return nil
	})
	c, err := idjetstream.NewConsumer(js, cons, proc, idjetstream.Options{Concurrency: 1, Prefetch: 2, KeyHeader: "X-Key"})
	if err != nil {
		t.Fatal(err)
	}
	publishKeyed(t, js, subject, "first")
	publishKeyed(t, js, subject, "second")
	run(t, c)
	<-started
	waitFor(t, "both messages delivered to the client", func() bool {
		info, err := cons.Info(ctx)
		return err == nil && info.NumAckPending == 2
	})
	// A second consumer on the same durable pulls all along: JetStream would redeliver
	// to it whatever it took for abandoned.
	_, js2 := connect(t, url)
	cons2, err := js2.Consumer(ctx, str.CachedInfo().Config.Name, "held")
	if err != nil {
		t.Fatal(err)
	}
	c2, err := idjetstream.NewConsumer(js2, cons2, proc, idjetstream.Options{Concurrency: 1, KeyHeader: "X-Key"})
	if err != nil {
		t.Fatal(err)
	}
	run(t, c2)
	time.Sleep(ackWait * 5 / 2)
	close(release)
	waitFor(t, "both processed", func() bool { return c.Stats().Processed+c2.Stats().Processed >= 2 })
	waitFor(t, "nothing unacknowledged", func() bool {
		info, err := cons.Info(ctx)
		return err == nil && info.NumAckPending == 0
	})
	for _, key := range []string{"first", "second"} {
		if n := len(times.get(key)); n != 1 {
			t.Errorf("%s processed %d times, want 1 (redelivered while it waited)", key, n)
		}
	}
	if info, err := cons.Info(ctx); err != nil || info.NumRedelivered != 0 {
		t.Errorf("consumer info %+v (%v): want no redeliveries", info, err)
	}
}
