//go:build unix

package idjetstream_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/idgen/idgen/integration/internal/consumetest"
	"github.com/idgen/idgen/plugins/idjetstream"
	"github.com/idgen/idgen/runtime/consume"
)

// specEnv holds, as JSON, the childSpec of a consumer process; the test binary is one when
// it is set.
const specEnv = "IDGEN_JETSTREAM_CHILD_SPEC"

// childSpec is what a consumer process consumes and where it writes.
type childSpec struct {
	URL, Stream, Consumer string
	Store                 consumetest.Store
	Prefetch, Conc        int
	Batch                 bool   // NewBatchConsumer with consume.OnceTxBatch
	Poison                string // the key of a message whose handler fails after writing its row
	DeadLetterSubject     string // Options.DeadLetterSubject
}

func TestMain(m *testing.M) {
	if os.Getenv(specEnv) == "" {
		os.Exit(m.Run())
	}
	if err := child(); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// child consumes with the exactly-once processor until SIGTERM (consumetest.Serve).
func child() error {
	var spec childSpec
	if err := json.Unmarshal([]byte(os.Getenv(specEnv)), &spec); err != nil {
		return err
	}
	s := spec.Store
	if err := s.Open(); err != nil {
		return err
	}
	defer s.DB.Close()
	nc, err := nats.Connect(spec.URL)
	if err != nil {
		return err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cons, err := js.Consumer(ctx, spec.Stream, spec.Consumer)
	if err != nil {
		return err
	}
	insert, pid := s.Insert(), os.Getpid()
	fn := func(ctx context.Context, tx *sql.Tx, d idjetstream.Delivery) error {
		if _, err := tx.ExecContext(ctx, insert, d.Key, pid); err != nil {
			return err
		}
		if spec.Poison != "" && d.Key == spec.Poison {
			return errors.New("poison")
		}
		return nil
	}
	opts := idjetstream.Options{Prefetch: spec.Prefetch, Concurrency: spec.Conc, DeadLetterSubject: spec.DeadLetterSubject,
		OnError: func(d idjetstream.Delivery, err error) { fmt.Fprintln(os.Stderr, err) }}
	var c *idjetstream.Consumer
	if spec.Batch {
		c, err = idjetstream.NewBatchConsumer(js, cons, consume.OnceTxBatch(s.DB, s.Ledger, fn), opts)
	} else {
		c, err = idjetstream.NewConsumer(js, cons, consume.OnceTx(s.DB, s.Ledger, fn), opts)
	}
	if err != nil {
		return err
	}
	return consumetest.Serve(c)
}

// TestProcesses: 3 consumer processes, 20,000 messages each published twice (a producer
// retry), and a consumer SIGKILLed and restarted at random points at least 3 times: once
// the consumer is drained, the effect table holds exactly one row per message, on
// PostgreSQL and on MariaDB. The stream's duplicate window drops the retries; the
// messages in flight when a consumer died come back after AckWait, and the ledger finds
// those whose effect had committed.
// Each database twice: consumers made by NewConsumer (consume.OnceTx), and by
// NewBatchConsumer (consume.OnceTxBatch, batches of up to 16), the "-batch" subtests.
// The first subtest carries the full load; the other three prove their own store and
// consumer under the same kills with a quarter of the messages (a heavy fault test runs
// once at full size).
func TestProcesses(t *testing.T) {
	url := natsURL(t)
	const (
		full      = 20000 // messages of the first subtest; the others have full/4
		consumers = 3
		kills     = 4
		ackWait   = 2 * time.Second // how soon a dead consumer's messages come back
	)
	subtests := 0
	for _, kind := range consumetest.Kinds() {
		for _, batch := range []bool{false, true} {
			messages := full
			if subtests++; subtests > 1 {
				messages = full / 4
			}
			name := kind.Name
			if batch {
				name += "-batch"
			}
			t.Run(name, func(t *testing.T) {
				s := kind.Open(t, "jetstream_procs_"+kind.Name)
				_, js := connect(t, url)
				str, subject := stream(t, js, "procs", jetstream.StreamConfig{})
				ctx := context.Background()
				// A MaxDeliver kills alone cannot reach: every message is processed, never
				// terminated for being in flight when its consumer died.
				cons, err := str.CreateOrUpdateConsumer(ctx, consumerConfig("workers", ackWait, 100))
				if err != nil {
					t.Fatal(err)
				}
				specJSON, err := json.Marshal(childSpec{URL: url, Stream: str.CachedInfo().Config.Name, Consumer: "workers",
					Store: *s, Prefetch: 64, Conc: 8, Batch: batch})
				if err != nil {
					t.Fatal(err)
				}
				env := specEnv + "=" + string(specJSON)
				procs := make([]*consumetest.Process, consumers)
				var gone []*consumetest.Process // killed or stopped: their counts are final
				for i := range procs {
					procs[i] = consumetest.Start(t, env)
				}

				// The producer: every message twice, the second a retry with the same key.
				type pubResult struct {
					dropped int
					err     error
				}
				pubDone := make(chan pubResult, 1)
				go func() {
					dropped, err := publishTwice(url, subject, messages)
					pubDone <- pubResult{dropped, err}
				}()

				drained := func() bool {
					info, err := cons.Info(ctx)
					if err != nil {
						t.Fatal(err)
					}
					return info.NumPending == 0 && info.NumAckPending == 0
				}
				// Kill a random consumer whenever the effects pass a random point between 5% and
				// 85% of the messages, and start another in its place.
				points := make([]int, kills)
				for i := range points {
					points[i] = messages/20 + rand.IntN(messages*80/100)
				}
				slices.Sort(points)
				deadline := time.Now().Add(5 * time.Minute)
				killed, published, dropped := 0, false, 0
				for keys := 0; !published || keys < messages || !drained(); _, keys = s.Effects(t) {
					select {
					case r := <-pubDone:
						if r.err != nil {
							t.Fatal(r.err)
						}
						published, dropped = true, r.dropped
					default:
					}
					if time.Now().After(deadline) {
						t.Fatalf("not drained after 5 minutes: %d of %d messages have effects", keys, messages)
					}
					if killed < kills && keys >= points[killed] {
						i := rand.IntN(consumers)
						procs[i].Kill()
						gone = append(gone, procs[i])
						procs[i] = consumetest.Start(t, env)
						killed++
						t.Logf("SIGKILLed consumer %d at %d effects", i, keys)
					}
					time.Sleep(20 * time.Millisecond)
				}
				if killed < 3 {
					t.Fatalf("only %d kills", killed)
				}
				for _, p := range procs {
					if err := p.Stop(); err != nil {
						t.Error(err)
					}
					gone = append(gone, p)
				}
				if !drained() {
					t.Errorf("messages left pending or unacknowledged after the consumers stopped")
				}
				info, err := str.Info(ctx)
				if err != nil {
					t.Fatal(err)
				}
				rows, keys := s.Effects(t)
				have, missing := s.Keys(t), 0
				for i := range messages {
					if !have[key(i)] {
						missing++
					}
				}
				total := consumetest.Sum(gone)
				t.Logf("%s: %d messages published twice (%d retries dropped by the duplicate window, %d stored), %d consumers, %d SIGKILLs: "+
					"%d effect rows, %d keys, %d missing, %d duplicate; the consumers counted %d processed, %d duplicates skipped, %d failed, "+
					"%d redeliveries (a killed consumer's last 50 ms are not counted)",
					s.Name, messages, dropped, info.State.Msgs, consumers, killed, rows, keys, missing, rows-keys,
					total.Processed, total.Duplicate, total.Failed, total.Redelivered)
				if rows != messages || keys != messages || missing != 0 {
					t.Errorf("effects: %d rows of %d keys, %d missing; want exactly %d rows, one per message", rows, keys, missing, messages)
				}
				if dropped != messages || info.State.Msgs != uint64(messages) {
					t.Errorf("the duplicate window dropped %d retries and the stream holds %d messages; want %d and %d", dropped, info.State.Msgs, messages, messages)
				}
				if total.Redelivered == 0 {
					t.Errorf("no redelivery counted: the kills did not interrupt work")
				}
			})
		}
	}
}

// key is message i's key.
func key(i int) string { return "m" + strconv.Itoa(i) }

// publishTwice publishes messages 0..n-1 to subject, each twice in a row with the same
// Nats-Msg-Id, with up to 512 acknowledgements outstanding; a publish that fails is
// retried. It returns how many copies JetStream dropped as duplicates.
func publishTwice(url, subject string, n int) (dropped int, err error) {
	return publish(url, subject, keys(n), 2)
}

// keys returns the keys of messages 0..n-1.
func keys(n int) []string {
	ks := make([]string, n)
	for i := range ks {
		ks[i] = key(i)
	}
	return ks
}

// publish publishes the messages of keys to subject, each copies times in a row with the
// same Nats-Msg-Id, as publishTwice does.
func publish(url, subject string, keys []string, copies int) (dropped int, err error) {
	nc, err := nats.Connect(url)
	if err != nil {
		return 0, err
	}
	defer nc.Close()
	js, err := jetstream.New(nc, jetstream.WithPublishAsyncMaxPending(512))
	if err != nil {
		return 0, err
	}
	ctx := context.Background()
	type pending struct {
		f   jetstream.PubAckFuture
		key string
	}
	var window []pending
	flush := func(keep int) error {
		for len(window) > keep {
			p := window[0]
			window = window[1:]
			select {
			case ack := <-p.f.Ok():
				if ack.Duplicate {
					dropped++
				}
			case <-p.f.Err():
				ack, err := idjetstream.Publish(ctx, js, subject, p.key, []byte(p.key))
				if err != nil {
					return err
				}
				if ack.Duplicate {
					dropped++
				}
			}
		}
		return nil
	}
	for _, k := range keys {
		for range copies {
			f, err := idjetstream.PublishAsync(js, subject, k, []byte(k))
			if err != nil {
				return dropped, err
			}
			window = append(window, pending{f, k})
		}
		if err := flush(256); err != nil {
			return dropped, err
		}
	}
	return dropped, flush(0)
}
