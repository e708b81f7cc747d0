//go:build unix

package idrabbit_test

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

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/idgen/idgen/plugins/rabbitmq"
	"github.com/idgen/idgen/runtime/consume"
	"github.com/idgen/idgen/runtime/idem"
)

// The environment of a consumer process: childEnv set to "consumer" and the childSpec as
// JSON.
const (
	childEnv = "IDGEN_RABBIT_CHILD"
	specEnv  = "IDGEN_RABBIT_SPEC"
)

// childSpec is what a consumer process consumes and where it writes.
type childSpec struct {
	URL, Queue     string
	Driver, DSN    string
	Dialect        idem.Dialect
	Prefetch, Conc int
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
	conn, err := amqp.Dial(spec.URL)
	if err != nil {
		return err
	}
	defer conn.Close()
	insert, pid := insertEffect(spec.Dialect), os.Getpid()
	proc := consume.OnceTx(db, ledger, func(ctx context.Context, tx *sql.Tx, d idrabbit.Delivery) error {
		_, err := tx.ExecContext(ctx, insert, d.Key, pid)
		return err
	})
	c, err := idrabbit.NewConsumer(conn, proc, idrabbit.Options{Queue: spec.Queue, Prefetch: spec.Prefetch, Concurrency: spec.Conc,
		OnError: func(d idrabbit.Delivery, err error) { fmt.Fprintln(os.Stderr, err) }})
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
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
// the queue is drained, the effect table holds exactly one row per message, on PostgreSQL
// and on MariaDB.
func TestProcesses(t *testing.T) {
	url := amqpURL(t)
	const (
		messages  = 20000
		consumers = 3
		kills     = 4
	)
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			s := st.open(t, "rabbit_procs_"+st.name)
			conn := dial(t, url)
			q := queueName(t, url, "procs")
			// A limit kills alone cannot reach: every message is processed, never
			// dead-lettered for being in flight when its consumer died.
			if _, _, err := idrabbit.DeclareQueue(channel(t, conn), q, idrabbit.QueueOptions{DeliveryLimit: 100}); err != nil {
				t.Fatal(err)
			}
			spec := childSpec{URL: url, Queue: q, Driver: s.driver, DSN: s.dsn, Dialect: s.dialect, Prefetch: 64, Conc: 8}
			procs := make([]*proc, consumers)
			var gone []*proc // killed or stopped: their counts are final
			for i := range procs {
				procs[i] = startChild(t, spec)
			}

			// The producer: every message twice, the second a retry with the same key.
			pubErr := make(chan error, 1)
			go func() { pubErr <- publishTwice(url, q, messages) }()

			// Kill a random consumer whenever the effects pass a random point between 5% and
			// 85% of the messages, and start another in its place.
			points := make([]int, kills)
			for i := range points {
				points[i] = messages/20 + rand.IntN(messages*80/100)
			}
			slices.Sort(points)
			deadline := time.Now().Add(5 * time.Minute)
			killed, published := 0, false
			for keys := 0; !published || keys < messages || queueLen(t, conn, q) > 0; _, keys = effectCounts(t, s.db) {
				select {
				case err := <-pubErr:
					if err != nil {
						t.Fatal(err)
					}
					published = true
				default:
				}
				if time.Now().After(deadline) {
					t.Fatalf("not drained after 5 minutes: %d of %d messages have effects, %d ready", keys, messages, queueLen(t, conn, q))
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

			// Stopped consumers hold nothing unacknowledged: a message still in the queue
			// now would be one without an effect.
			if n := queueLen(t, conn, q); n != 0 {
				t.Errorf("%d messages left in the queue", n)
			}
			if n := queueLen(t, conn, q+".dead"); n != 0 {
				t.Errorf("%d messages dead-lettered", n)
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
			t.Logf("%s: %d messages published twice, %d consumers, %d SIGKILLs: %d effect rows, %d keys, %d missing, %d duplicate; "+
				"the consumers counted %d processed, %d duplicates skipped, %d failed, %d redeliveries (a killed consumer's last 50 ms are not counted)",
				s.name, messages, consumers, killed, rows, keys, missing, rows-keys,
				total.Processed, total.Duplicate, total.Failed, total.Redelivered)
			if rows != messages || keys != messages || missing != 0 {
				t.Errorf("effects: %d rows of %d keys, %d missing; want exactly %d rows, one per message", rows, keys, missing, messages)
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

// publishTwice publishes messages 0..n-1 to queue q, each twice in a row, with up to 512
// confirmations outstanding; a nacked message is published again.
func publishTwice(url, q string, n int) error {
	conn, err := amqp.Dial(url)
	if err != nil {
		return err
	}
	defer conn.Close()
	ch, err := conn.Channel()
	if err != nil {
		return err
	}
	pub, err := idrabbit.NewPublisher(ch)
	if err != nil {
		return err
	}
	ctx := context.Background()
	type pending struct {
		dc  *amqp.DeferredConfirmation
		key string
	}
	var window []pending
	flush := func(keep int) error {
		for len(window) > keep {
			p := window[0]
			window = window[1:]
			ok, err := p.dc.WaitContext(ctx)
			if err != nil {
				return err
			}
			if !ok {
				if err := pub.Publish(ctx, "", q, p.key, amqp.Publishing{Body: []byte(p.key)}); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for i := range n {
		for range 2 {
			dc, err := pub.PublishAsync(ctx, "", q, key(i), amqp.Publishing{Body: []byte(key(i))})
			if err != nil {
				return err
			}
			window = append(window, pending{dc, key(i)})
		}
		if err := flush(512); err != nil {
			return err
		}
	}
	return flush(0)
}
