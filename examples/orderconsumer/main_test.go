package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
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

// TestDecodeOrder: an order message is what examples/orders accepts as a new order; the
// rest is not an order (errBadOrder), -5 and 0 cents included.
func TestDecodeOrder(t *testing.T) {
	for _, body := range []string{``, `not json`, `{"cents":`, `{}`, `[]`, `null`, `{"cents":null}`, `{"cents":"1999"}`,
		`{"cents":0}`, `{"cents":-5}`, `{"cents":1.5}`, `{"cents":99999999999999999999}`, `{"cents":5,"note":"x"}`,
		`{"cents":5}{"cents":6}`, `{"cents":5} trailing`} {
		if cents, err := decodeOrder([]byte(body)); !errors.Is(err, errBadOrder) {
			t.Errorf("decodeOrder(%q) = %d, %v; want errBadOrder", body, cents, err)
		}
	}
	for body, want := range map[string]int64{`{"cents":1999}`: 1999, ` { "cents" : 1 } `: 1, "{\"cents\":7}\n": 7} {
		if cents, err := decodeOrder([]byte(body)); cents != want || err != nil {
			t.Errorf("decodeOrder(%q) = %d, %v; want %d", body, cents, err, want)
		}
	}
}

// TestRefusesBadOrders: orders of -5 and 0 cents, and one with an unknown member, are not
// orders: each fails its 3 attempts and is dead-lettered, and only the good order is
// stored. (They were stored.)
func TestRefusesBadOrders(t *testing.T) {
	url := os.Getenv(amqpEnv)
	if url == "" {
		t.Skip("set " + amqpEnv + " (amqp://guest:guest@127.0.0.1:5672/) to run against RabbitMQ")
	}
	queue := "idgen_test.orderconsumer." + strings.ToLower(rand.Text()[:10])
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := newService(ctx, config{AMQP: url, Queue: queue, DB: filepath.Join(t.TempDir(), "orders.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	t.Cleanup(func() { deleteQueues(t, url, queue, queue+".dead") })
	conn, err := amqp.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ch, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	p, err := idrabbit.NewPublisher(ch)
	if err != nil {
		t.Fatal(err)
	}
	for key, body := range map[string]string{"neg": `{"cents":-5}`, "zero": `{"cents":0}`, "extra": `{"cents":5,"note":"x"}`, "good": `{"cents":100}`} {
		if err := p.Publish(ctx, "", queue, key, amqp.Publishing{ContentType: "application/json", Body: []byte(body)}); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if n := s.consumer.Stats(); n.Processed+n.DeadLettered == 4 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after a minute: %+v", s.consumer.Stats())
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	var orders []Order
	if err := s.db.Order("cents").Find(&orders).Error; err != nil {
		t.Fatal(err)
	}
	if n := s.consumer.Stats(); len(orders) != 1 || orders[0].Cents != 100 || orders[0].MessageID != "good" || n.DeadLettered != 3 {
		t.Errorf("stored %+v, stats %+v; want the good order alone, 3 dead-lettered", orders, n)
	}
}

// TestConfigure: the RabbitMQ password comes from -amqp-password-file or the environment,
// never from -amqp, whose URL is refused when it carries one (without repeating it).
func TestConfigure(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "pw")
	if err := os.WriteFile(file, []byte("from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	env := func(v string) func(string) string {
		return func(name string) string {
			if name == passwordEnv {
				return v
			}
			return ""
		}
	}
	for _, tc := range []struct {
		args []string
		env  string
		want string // the URL, or the start of the error
	}{
		{nil, "", "amqp://guest@127.0.0.1:5672/"},
		{nil, "from-env", "amqp://guest:from-env@127.0.0.1:5672/"},
		{[]string{"-amqp", "amqp://alice@rabbit:5672/vh"}, "s3cr%t", "amqp://alice:s3cr%25t@rabbit:5672/vh"},
		{[]string{"-amqp-password-file", file}, "from-env", "amqp://guest:from-file@127.0.0.1:5672/"},
		{[]string{"-amqp", "amqp://alice:hunter2@rabbit:5672/"}, "", "error: -amqp carries a password"},
		{[]string{"-amqp-password-file", empty}, "", "error: -amqp-password-file"},
		{[]string{"-amqp-password-file", filepath.Join(dir, "none")}, "", "error: -amqp-password-file"},
		{[]string{"-amqp", "rabbit:5672"}, "", "error: -amqp: not a URL"},
	} {
		cfg, _, err := configure(tc.args, env(tc.env))
		got := cfg.AMQP
		if err != nil {
			got = "error: " + err.Error()
			if strings.Contains(got, "hunter2") {
				t.Errorf("configure(%q): the error repeats the password: %s", tc.args, got)
			}
		}
		if !strings.HasPrefix(got, tc.want) || err == nil && got != tc.want {
			t.Errorf("configure(%q) with $%s=%q: %s, want %s", tc.args, passwordEnv, tc.env, got, tc.want)
		}
	}
}

// TestPasswordNotOnCommandLine builds the program and runs it as a user would, with the
// password in the environment: it connects to RabbitMQ and serves /metrics, its command
// line (what ps shows) holds no password, and with a wrong password in the environment
// it fails to connect, so the password it used was that one.
func TestPasswordNotOnCommandLine(t *testing.T) {
	raw := os.Getenv(amqpEnv)
	if raw == "" {
		t.Skip("set " + amqpEnv + " (amqp://guest:guest@127.0.0.1:5672/) to run against RabbitMQ")
	}
	u, err := neturl.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	password, _ := u.User.Password()
	u.User = neturl.User(u.User.Username())
	bin := filepath.Join(t.TempDir(), "orderconsumer")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	queue := "idgen_test.orderconsumer." + strings.ToLower(rand.Text()[:10])
	t.Cleanup(func() { deleteQueues(t, raw, queue, queue+".dead") })
	start := func(password string) (*exec.Cmd, string, *strings.Builder) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		cmd := exec.Command(bin, "-amqp", u.String(), "-queue", queue, "-db", filepath.Join(t.TempDir(), "orders.db"), "-listen", addr)
		cmd.Env = append(os.Environ(), passwordEnv+"="+password)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd, addr, &stderr
	}

	cmd, addr, stderr := start(password)
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if resp, err := http.Get("http://" + addr + "/metrics"); err == nil {
			resp.Body.Close()
			break
		}
		if cmd.ProcessState != nil || time.Now().After(deadline) {
			t.Fatalf("the program did not serve /metrics: %s", stderr.String())
		}
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	if args := strings.ReplaceAll(string(cmdline), "\x00", " "); strings.Contains(args, ":"+password+"@") || strings.Contains(args, "password") && !strings.Contains(args, "-amqp-password-file") {
		t.Errorf("the command line holds the password: %s", args)
	}

	wrong, _, wrongErr := start(password + "-wrong")
	err = wrong.Wait()
	if err == nil || !strings.Contains(wrongErr.String(), "connecting to RabbitMQ") {
		t.Errorf("with a wrong password in $%s: exit %v, %s; want a failed connection", passwordEnv, err, wrongErr.String())
	}
}
