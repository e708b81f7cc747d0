// Package fleettest proves uniqueness across a fleet of idgen-server processes: three
// servers on loopback sharing one lease store (etcd, or PostgreSQL) and one segment store
// (a Redis of the test's own), a Go client and the Node client drawing from all three
// under load, while servers are killed and paused and the stores are stopped.
package fleettest

import (
	"bufio"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"connectrpc.com/connect"
	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/idgen/idgen/cmd/idgen-server/internal/testserver"
	"github.com/idgen/idgen/idgenclient"
	"github.com/idgen/idgen/runtime/snowflake"
)

// needFleet skips unless IDGEN_TEST_FLEET=1: the fleet tests run processes for a minute
// and time failovers, so they run alone (.ci/server sets the variable for its own step),
// not beside every other package of a `go test ./...`.
func needFleet(t *testing.T) {
	if os.Getenv("IDGEN_TEST_FLEET") != "1" {
		t.Skip("IDGEN_TEST_FLEET=1 is not set (.ci/run sets it)")
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

const (
	token = "fleet-test-token-0123456789"
	ttl   = 2 * time.Second
	// pace is how many IDs a Go drawer takes between pauses of a millisecond.
	pace = 64
)

// fleet is three servers and their clients.
type fleet struct {
	t       *testing.T
	servers []*proc
	urls    []string
	direct  []*idgenclient.Client // one per server, no failover
}

func startFleet(t *testing.T, leaseStore, segmentStore string) *fleet {
	f := &fleet{t: t}
	for i := range 3 {
		port := testserver.FreePort(t)
		url := fmt.Sprintf("http://127.0.0.1:%d", port)
		cfg := fmt.Sprintf(`listen: 127.0.0.1:%d
log: {level: debug}
drain: 2s
tokens: [{token: %s}]
stores:
  lease: %s
  seg: %s
snowflake:
  layout: classic
  lease: {store: lease, ttl: %v}
tags:
  - {name: id, kind: snowflake}
  - {name: order, kind: segment, store: seg, step: 500000, min_step: 500000, max_step: 2000000}
`, port, token, leaseStore, segmentStore, ttl)
		f.servers = append(f.servers, startServer(t, fmt.Sprintf("server%d", i), cfg))
		f.urls = append(f.urls, url)
		c, err := idgenclient.New(idgenclient.Options{Addresses: []string{url}, Token: token, CallTimeout: 2 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		f.direct = append(f.direct, c)
	}
	for _, u := range f.urls {
		testserver.WaitReady(t, u)
	}
	return f
}

// ids collects every ID handed out, by tag, from every drawer.
type ids struct {
	mu    sync.Mutex
	byTag map[string][]int64
}

func (s *ids) add(tag string, v ...int64) {
	s.mu.Lock()
	s.byTag[tag] = append(s.byTag[tag], v...)
	s.mu.Unlock()
}

// load is the Go client and the Node client drawing from every server.
type load struct {
	stop      chan struct{}
	wg        sync.WaitGroup
	got       *ids
	goErrs    atomic.Int64
	goSegErrs atomic.Int64 // errors of the segment source
	maxStall  atomic.Int64 // nanoseconds, the longest NextInt64 of the Go client
	node      *exec.Cmd
	nodeIn    io.WriteCloser
	nodeDone  chan string // the Node client's closing JSON line
	nodeLog   *strings.Builder
}

func (f *fleet) startLoad(t *testing.T, withNode bool) *load {
	l := &load{stop: make(chan struct{}), got: &ids{byTag: map[string][]int64{}}, nodeDone: make(chan string, 1)}
	c, err := idgenclient.New(idgenclient.Options{Addresses: f.urls, Token: token, MaxBatch: 2000})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	sf, err := c.Snowflake(ctx, "id")
	if err != nil {
		t.Fatal(err)
	}
	seg, err := c.Segment(ctx, "order")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		var src idgenSource = sf
		tag := "id"
		if i%2 == 1 {
			src, tag = seg, "order"
		}
		l.wg.Go(func() {
			buf := make([]int64, 0, 1024)
			for {
				select {
				case <-l.stop:
					l.got.add(tag, buf...)
					return
				default:
				}
				t0 := time.Now()
				cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
				id, err := src.NextInt64(cctx)
				cancel()
				if d := int64(time.Since(t0)); err == nil && d > l.maxStall.Load() {
					l.maxStall.Store(d)
				}
				if err != nil {
					l.goErrs.Add(1)
					if tag == "order" {
						l.goSegErrs.Add(1)
					}
					time.Sleep(10 * time.Millisecond) // back off: the fleet is down
					continue
				}
				if buf = append(buf, id); len(buf) == cap(buf) {
					l.got.add(tag, buf...)
					buf = buf[:0]
				}
				if len(buf)%pace == 0 {
					// About 50,000 IDs/s per goroutine: load, not a CPU-starved machine
					// whose stalls would be the test's own.
					time.Sleep(time.Millisecond)
				}
			}
		})
	}
	if withNode {
		node, err := exec.LookPath("node")
		if err == nil {
			_, err = os.Stat("../../testdata/node/node_modules/@connectrpc/connect-node")
		}
		if err != nil {
			msg := "the fleet test's Node client needs node and `npm ci` in cmd/idgen-server/testdata/node: " + err.Error()
			if os.Getenv("IDGEN_TEST_NODE") == "1" {
				t.Fatal(msg)
			}
			t.Log(msg + " (skipping the Node client)")
			return l
		}
		l.node = exec.Command(node, "fleet.mjs", strings.Join(f.urls, ","), token, "id,order", "4")
		l.node.Dir = "../../testdata/node"
		l.nodeLog = &strings.Builder{}
		l.node.Stderr = l.nodeLog
		l.nodeIn, _ = l.node.StdinPipe()
		out, _ := l.node.StdoutPipe()
		if err := l.node.Start(); err != nil {
			t.Fatal(err)
		}
		l.wg.Go(func() {
			sc := bufio.NewScanner(out)
			var buf []string
			for sc.Scan() {
				buf = append(buf, sc.Text())
			}
			for _, line := range buf {
				var tag string
				var id int64
				if _, err := fmt.Sscan(line, &tag, &id); err == nil {
					l.got.add("node:"+tag, id)
				}
			}
		})
	}
	return l
}

type idgenSource interface {
	NextInt64(ctx context.Context) (int64, error)
}

// end stops the drawers and returns the Node client's summary.
func (l *load) end(t *testing.T) string {
	close(l.stop)
	summary := ""
	if l.node != nil {
		l.nodeIn.Close()
		done := make(chan error, 1)
		go func() { done <- l.node.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("node fleet client: %v\n%s", err, l.nodeLog.String())
			}
		case <-time.After(30 * time.Second):
			l.node.Process.Kill()
			t.Errorf("node fleet client did not stop")
		}
		summary = strings.TrimSpace(l.nodeLog.String())
	}
	l.wg.Wait()
	return summary
}

// check counts the IDs of each tag over Go and Node and fails on a duplicate.
func (l *load) check(t *testing.T) map[string]int {
	counts := map[string]int{}
	for _, tag := range []string{"id", "order"} {
		all := append(append([]int64(nil), l.got.byTag[tag]...), l.got.byTag["node:"+tag]...)
		seen := make(map[int64]struct{}, len(all))
		dups := 0
		for _, id := range all {
			if _, ok := seen[id]; ok {
				dups++
			}
			seen[id] = struct{}{}
		}
		if dups > 0 {
			t.Errorf("tag %q: %d duplicate IDs among %d", tag, dups, len(all))
		}
		counts[tag] = len(all)
		counts["node:"+tag] = len(l.got.byTag["node:"+tag])
	}
	return counts
}

// during keeps the load running for d: the load is the event the test waits on, so this
// is how long to apply it, not a wait for something to happen.
func during(d time.Duration) { time.Sleep(d) }

// TestFleetEtcd is the heavy run, once: leases on etcd, segments on Redis; one server
// SIGKILLed, one SIGSTOPped past its lease, the segment store stopped for 5 s, the lease
// store stopped past the lease's margin.
func TestFleetEtcd(t *testing.T) {
	needFleet(t)
	etcd, etcdAddr := startEtcd(t)
	redis, redisAddr := startRedis(t)
	prefix := "idgen-fleet-" + rand.Text()[:8] + "/"
	f := startFleet(t, fmt.Sprintf("{type: etcd, endpoints: [%q], prefix: %q}", etcdAddr, prefix),
		fmt.Sprintf("{type: redis, dsn: %q}", "redis://"+redisAddr+"/0"))
	l := f.startLoad(t, true)
	during(time.Second)

	// 1. SIGKILL server 0: the clients fail over.
	if err := f.servers[0].signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	during(1500 * time.Millisecond)

	// 2. SIGSTOP server 1 past its lease. What it answers after SIGCONT is UNAVAILABLE or
	// an ID stamped before its old lease could end: nothing stamped after it.
	st, err := f.direct[1].Status(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	oldWorker := st.Lease.Worker
	paused := time.Now()
	if err := f.servers[1].signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	during(ttl + time.Second)
	// Calls sent while it is stopped wait in its socket; they are served when it resumes.
	type answer struct {
		id  int64
		err error
	}
	answers := make(chan answer, 20)
	var probes sync.WaitGroup
	for range 20 {
		probes.Go(func() {
			r, err := f.direct[1].Next(context.Background(), "id")
			if err != nil {
				answers <- answer{err: err}
				return
			}
			answers <- answer{id: r.Id}
		})
	}
	time.Sleep(50 * time.Millisecond) // the probes reach the stopped server's socket
	if err := f.servers[1].signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	probes.Wait()
	close(answers)
	layout := snowflake.Classic()
	unavailable := 0
	for a := range answers {
		if a.err != nil {
			if connect.CodeOf(errors.Unwrap(a.err)) != connect.CodeUnavailable && !strings.Contains(a.err.Error(), "unavailable") {
				t.Errorf("paused server answered %v, want UNAVAILABLE or an ID", a.err)
			}
			unavailable++
			continue
		}
		p, _ := layout.Decode(snowflake.ID(a.id))
		if p.Worker == oldWorker && !layout.TimeOf(p.Tick).Before(paused.Add(ttl)) {
			t.Errorf("paused server issued %d under its old worker %d stamped %v, after its lease (paused at %v)", a.id, oldWorker, layout.TimeOf(p.Tick), paused)
		}
		f.ids(l, "id", a.id)
	}
	t.Logf("paused server: %d of 20 calls UNAVAILABLE after resuming, the rest issued under a new lease or stamped before the old one ended", unavailable)
	testserver.WaitReady(t, f.urls[1])
	during(time.Second)

	// 3. The segment store stopped for 5 s: segment calls are served from buffers.
	segErrs := l.goSegErrs.Load()
	if err := redis.signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	during(5 * time.Second)
	if err := redis.signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	if d := l.goSegErrs.Load() - segErrs; d > 0 {
		t.Errorf("%d segment calls failed while the segment store was stopped: buffers should serve them", d)
	}

	// 4. The lease store stopped: served until the lease's margin, then UNAVAILABLE.
	stopped := time.Now()
	if err := etcd.signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	// Every ID served after the stop is stamped before the lease could end (the stop
	// plus the TTL); then calls are UNAVAILABLE. Stamps, not arrival times, are what the
	// guarantee is about: a call may return after the deadline with an ID stamped
	// before it.
	served, firstRefusal := 0, time.Duration(0)
	for time.Since(stopped) < ttl+3*time.Second {
		r, err := f.direct[2].Next(context.Background(), "id")
		if err != nil {
			if connect.CodeOf(errors.Unwrap(err)) != connect.CodeUnavailable && !strings.Contains(err.Error(), "unavailable") {
				t.Fatalf("with the lease store stopped: %v, want UNAVAILABLE", err)
			}
			firstRefusal = time.Since(stopped)
			break
		}
		if stamp, _ := layout.Time(snowflake.ID(r.Id)); !stamp.Before(stopped.Add(ttl)) {
			t.Errorf("ID %d stamped %v, after the lease could end (%v)", r.Id, stamp, stopped.Add(ttl))
		}
		f.ids(l, "id", r.Id)
		served++
	}
	if firstRefusal == 0 || served == 0 {
		t.Fatalf("lease store stopped: %d served, first refusal after %v: want some served, then UNAVAILABLE", served, firstRefusal)
	}
	t.Logf("lease store stopped: %d IDs served, all stamped before the lease could end, then UNAVAILABLE after %v (TTL %v, margin %v)", served, firstRefusal.Round(time.Millisecond), ttl, ttl/10)
	if err := etcd.signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	testserver.WaitReady(t, f.urls[2])
	during(time.Second)

	node := l.end(t)
	counts := l.check(t)
	stall := time.Duration(l.maxStall.Load())
	t.Logf("fleet (etcd leases, Redis segments): snowflake IDs %d (Node %d), segment IDs %d (Node %d), 0 duplicates; Go client: longest NextInt64 %v, %d errors (lease store down); Node: %s",
		counts["id"], counts["node:id"], counts["order"], counts["node:order"], stall.Round(time.Millisecond), l.goErrs.Load(), node)
	var ns struct{ MaxStallMs int64 }
	if err := json.Unmarshal([]byte(lastLine(node)), &ns); node != "" && err != nil {
		t.Errorf("the Node client's summary %q: %v", node, err)
	}
	if ns.MaxStallMs >= 1000 {
		t.Errorf("a Node client call took %d ms: failover should take under 1 s", ns.MaxStallMs)
	}
	if stall >= time.Second {
		t.Errorf("the Go client stalled %v: failover should take under 1 s", stall)
	}
	if counts["id"] == 0 || counts["order"] == 0 {
		t.Errorf("nothing drawn: %v", counts)
	}
}

// ids adds IDs a probe took to the load's collection, for the duplicate check.
func (f *fleet) ids(l *load, tag string, v ...int64) { l.got.add(tag, v...) }

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// TestFleetPostgres is the same fleet on PostgreSQL leases (a table of the test's own on
// IDGEN_TEST_POSTGRES_DSN's server), with the lighter fault only: one server SIGKILLed
// under load. The heavy faults are TestFleetEtcd's: the lease store's kind does not
// change what they prove.
func TestFleetPostgres(t *testing.T) {
	needFleet(t)
	dsn := os.Getenv("IDGEN_TEST_POSTGRES_DSN")
	if dsn == "" {
		t.Skip("IDGEN_TEST_POSTGRES_DSN is not set")
	}
	table := "idgen_lease_fleet_" + strings.ToLower(rand.Text()[:10])
	t.Cleanup(func() {
		if db, err := sql.Open("pgx", dsn); err == nil {
			db.Exec("DROP TABLE IF EXISTS " + table)
			db.Exec("DROP TABLE IF EXISTS " + table + "_servers")
			db.Close()
		}
	})
	_, redisAddr := startRedis(t)
	f := startFleet(t, fmt.Sprintf("{type: postgres, dsn: %q, lease_table: %s, server_table: %s_servers}", dsn, table, table),
		fmt.Sprintf("{type: redis, dsn: %q}", "redis://"+redisAddr+"/0"))
	workers := map[int64]bool{}
	for i := range f.direct {
		st, err := f.direct[i].Status(context.Background(), 0)
		if err != nil {
			t.Fatal(err)
		}
		if workers[st.Lease.Worker] {
			t.Fatalf("two servers hold worker ID %d", st.Lease.Worker)
		}
		workers[st.Lease.Worker] = true
	}
	l := f.startLoad(t, true)
	during(1500 * time.Millisecond)
	if err := f.servers[0].signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	during(1500 * time.Millisecond)
	node := l.end(t)
	counts := l.check(t)
	stall := time.Duration(l.maxStall.Load())
	t.Logf("fleet (PostgreSQL leases, Redis segments): snowflake IDs %d (Node %d), segment IDs %d (Node %d), 0 duplicates; Go client: longest NextInt64 %v; Node: %s",
		counts["id"], counts["node:id"], counts["order"], counts["node:order"], stall.Round(time.Millisecond), node)
	if stall >= time.Second {
		t.Errorf("the Go client stalled %v: failover should take under 1 s", stall)
	}
	if n := l.goErrs.Load(); n > 0 {
		t.Logf("%d Go client calls failed (every server slower than the call timeout): IDs stay unique, callers retry", n)
	}
}
