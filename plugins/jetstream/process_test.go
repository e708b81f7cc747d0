//go:build unix

package idjetstream_test

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/idgen/idgen/plugins/jetstream"
	"github.com/idgen/idgen/runtime/consume"
	"github.com/idgen/idgen/runtime/idem"
)

// The environment of a consumer process: childEnv set to "consumer" and the childSpec as
// JSON.
const (
	childEnv = "IDGEN_JETSTREAM_CHILD"
	specEnv  = "IDGEN_JETSTREAM_SPEC"
)

// childSpec is what a consumer process consumes and where it writes.
type childSpec struct {
	URL, Stream, Consumer string
	Driver, DSN           string
	Dialect               idem.Dialect
	Prefetch, Conc        int
}

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "" {
		os.Exit(m.Run())
	}
	if err := child(); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// child consumes until SIGTERM with the exactly-once processor, writing its counts on
// standard output every 50 ms and once more when it stops ("final").
func child() error {
	var spec childSpec
	if err := json.Unmarshal([]byte(os.Getenv(specEnv)), &spec); err != nil {
		return err
	}
	db, err := sql.Open(spec.Driver, spec.DSN)
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxIdleConns(spec.Conc)
	ledger, err := idem.NewLedger(spec.Dialect, idem.LedgerOptions{})
	if err != nil {
		return err
	}
	nc, err := nats.Connect(spec.URL)
	if err != nil {
		return err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	cons, err := js.Consumer(ctx, spec.Stream, spec.Consumer)
	if err != nil {
		return err
	}
	insert, pid := insertEffect(spec.Dialect), os.Getpid()
	proc := consume.OnceTx(db, ledger, func(ctx context.Context, tx *sql.Tx, d idjetstream.Delivery) error {
		_, err := tx.ExecContext(ctx, insert, d.Key, pid)
		return err
	})
	c, err := idjetstream.NewConsumer(js, cons, proc, idjetstream.Options{Prefetch: spec.Prefetch, Concurrency: spec.Conc,
		OnError: func(d idjetstream.Delivery, err error) { fmt.Fprintln(os.Stderr, err) }})
	if err != nil {
		return err
	}
	out := json.NewEncoder(os.Stdout)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	go func() {
		for range tick.C {
			out.Encode(report{Counts: c.Stats()})
		}
	}()
	fmt.Println(`"ready"`)
	err = c.Run(ctx)
	tick.Stop()
	out.Encode(report{Counts: c.Stats(), Final: true})
	return err
}

// report is a line a consumer process writes.
type report struct {
	consume.Counts
	Final bool
}

// proc is a consumer process.
type proc struct {
	cmd    *exec.Cmd
	exited chan struct{}
	err    error // from Wait, once exited is closed
	stderr bytes.Buffer

	mu   sync.Mutex
	last report // its latest counts
}

func startChild(t *testing.T, spec childSpec) *proc {
	t.Helper()
	js, _ := json.Marshal(spec)
	p := &proc{exited: make(chan struct{})}
	p.cmd = exec.Command(os.Args[0], "-test.run=^$")
	p.cmd.Env = append(os.Environ(), childEnv+"=consumer", specEnv+"="+string(js))
	p.cmd.Stderr = &p.stderr
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if sc.Text() == `"ready"` {
				close(ready)
				continue
			}
			var r report
			if json.Unmarshal(sc.Bytes(), &r) == nil {
				p.mu.Lock()
				p.last = r
				p.mu.Unlock()
			}
		}
		p.err = p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() { p.cmd.Process.Kill(); <-p.exited })
	select {
	case <-ready:
	case <-p.exited:
		t.Fatalf("consumer process exited before it was ready: %v: %s", p.err, p.stderr.String())
	}
	return p
}

func (p *proc) counts() report {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.last
}

// TestProcesses: 3 consumer processes, 20,000 messages each published twice (a producer
// retry), and a consumer SIGKILLed and restarted at random points at least 3 times: once
// the consumer is drained, the effect table holds exactly one row per message, on
// PostgreSQL and on MariaDB. The stream's duplicate window drops the retries; the
// messages in flight when a consumer died come back after AckWait, and the ledger finds
// those whose effect had committed.
func TestProcesses(t *testing.T) {
	url := natsURL(t)
	const (
		messages  = 20000
		consumers = 3
		kills     = 4
		ackWait   = 2 * time.Second // how soon a dead consumer's messages come back
	)
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			s := st.open(t, "jetstream_procs_"+st.name)
			_, js := connect(t, url)
			str, subject := stream(t, js, "procs", jetstream.StreamConfig{})
			ctx := context.Background()
			// A MaxDeliver kills alone cannot reach: every message is processed, never
			// terminated for being in flight when its consumer died.
			cons, err := str.CreateOrUpdateConsumer(ctx, consumerConfig("workers", ackWait, 100))
			if err != nil {
				t.Fatal(err)
			}
			spec := childSpec{URL: url, Stream: str.CachedInfo().Config.Name, Consumer: "workers",
				Driver: s.driver, DSN: s.dsn, Dialect: s.dialect, Prefetch: 64, Conc: 8}
			procs := make([]*proc, consumers)
			var gone []*proc // killed or stopped: their counts are final
			for i := range procs {
				procs[i] = startChild(t, spec)
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
			for keys := 0; !published || keys < messages || !drained(); _, keys = effectCounts(t, s.db) {
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
					procs[i].cmd.Process.Kill()
					<-procs[i].exited
					gone = append(gone, procs[i])
					procs[i] = startChild(t, spec)
					killed++
					t.Logf("SIGKILLed consumer %d at %d effects", i, keys)
				}
				time.Sleep(20 * time.Millisecond)
			}
			if killed < 3 {
				t.Fatalf("only %d kills", killed)
			}
			for _, p := range procs {
				p.cmd.Process.Signal(syscall.SIGTERM)
				<-p.exited
				if p.err != nil {
					t.Errorf("consumer process: %v: %s", p.err, p.stderr.String())
				}
				if !p.counts().Final {
					t.Errorf("consumer process stopped without its final counts")
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
			rows, keys := effectCounts(t, s.db)
			missing := missingKeys(t, s.db, messages)
			var total consume.Counts
			for _, p := range gone {
				c := p.counts()
				total.Processed += c.Processed
				total.Duplicate += c.Duplicate
				total.Failed += c.Failed
				total.Redelivered += c.Redelivered
			}
			t.Logf("%s: %d messages published twice (%d retries dropped by the duplicate window, %d stored), %d consumers, %d SIGKILLs: "+
				"%d effect rows, %d keys, %d missing, %d duplicate; the consumers counted %d processed, %d duplicates skipped, %d failed, "+
				"%d redeliveries (a killed consumer's last 50 ms are not counted)",
				s.name, messages, dropped, info.State.Msgs, consumers, killed, rows, keys, missing, rows-keys,
				total.Processed, total.Duplicate, total.Failed, total.Redelivered)
			if rows != messages || keys != messages || missing != 0 {
				t.Errorf("effects: %d rows of %d keys, %d missing; want exactly %d rows, one per message", rows, keys, missing, messages)
			}
			if dropped != messages || info.State.Msgs != messages {
				t.Errorf("the duplicate window dropped %d retries and the stream holds %d messages; want %d and %d", dropped, info.State.Msgs, messages, messages)
			}
			if total.Redelivered == 0 {
				t.Errorf("no redelivery counted: the kills did not interrupt work")
			}
		})
	}
}

// key is message i's key.
func key(i int) string { return "m" + strconv.Itoa(i) }

// missingKeys returns how many of the keys of messages 0..n-1 have no effect row.
func missingKeys(t *testing.T, db *sql.DB, n int) int {
	t.Helper()
	have := make(map[string]bool, n)
	rows, err := db.Query("SELECT DISTINCT msg_key FROM effects")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			t.Fatal(err)
		}
		have[k] = true
	}
	missing := 0
	for i := range n {
		if !have[key(i)] {
			missing++
		}
	}
	return missing
}

// publishTwice publishes messages 0..n-1 to subject, each twice in a row with the same
// Nats-Msg-Id, with up to 512 acknowledgements outstanding; a publish that fails is
// retried. It returns how many copies JetStream dropped as duplicates.
func publishTwice(url, subject string, n int) (dropped int, err error) {
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
	for i := range n {
		for range 2 {
			f, err := idjetstream.PublishAsync(js, subject, key(i), []byte(key(i)))
			if err != nil {
				return dropped, err
			}
			window = append(window, pending{f, key(i)})
		}
		if err := flush(256); err != nil {
			return dropped, err
		}
	}
	return dropped, flush(0)
}
