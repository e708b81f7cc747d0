//go:build unix

package lease_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idgen/idgen/integration/internal/testdb"
	"github.com/idgen/idgen/runtime/lease/leasetest"
	"github.com/idgen/idgen/runtime/snowflake"
)

// redisServer is a redis-server of a test's own, without persistence, on a loopback port
// and in a directory of its own, so that the test can restart it empty.
type redisServer struct {
	bin, dir string
	port     int
	cmd      *exec.Cmd
	exited   chan struct{}
}

// startRedis starts a redis-server for t and stops it when t ends. It runs only where the
// Redis tests run (IDGEN_TEST_REDIS_DSN set) and redis-server is installed, and skips
// naming what is missing otherwise.
func startRedis(t *testing.T) *redisServer {
	t.Helper()
	if os.Getenv(testdb.RedisEnv) == "" {
		t.Skip("set " + testdb.RedisEnv + " to run against Redis (this test starts its own redis-server)")
	}
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server not found: install it to run the test that restarts Redis")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	s := &redisServer{bin: bin, dir: t.TempDir(), port: port}
	s.start(t)
	t.Cleanup(s.kill)
	return s
}

// dsn is the URL of the server.
func (s *redisServer) dsn() string { return fmt.Sprintf("redis://127.0.0.1:%d/0", s.port) }

// start runs redis-server, keeping nothing on disk, and waits until it answers.
func (s *redisServer) start(t *testing.T) {
	t.Helper()
	s.cmd = exec.Command(s.bin, "--port", strconv.Itoa(s.port), "--bind", "127.0.0.1", "--save", "",
		"--appendonly", "no", "--dir", s.dir, "--logfile", filepath.Join(s.dir, "redis.log"))
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	s.exited = exited
	go func() { s.cmd.Wait(); close(exited) }()
	c := redis.NewClient(&redis.Options{Addr: fmt.Sprintf("127.0.0.1:%d", s.port)})
	defer c.Close()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := c.Ping(ctx).Err()
		cancel()
		if err == nil {
			return
		}
		select {
		case <-exited:
			log, _ := os.ReadFile(filepath.Join(s.dir, "redis.log"))
			t.Fatalf("redis-server on port %d exited: %s", s.port, log)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("redis-server on port %d does not answer: %v", s.port, err)
		}
	}
}

// kill stops the server with SIGKILL, as a crash would, and waits for it to exit.
func (s *redisServer) kill() {
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Signal(syscall.SIGKILL)
	<-s.exited
	s.cmd = nil
}

// restart kills the server and starts it again on the same port: it comes back empty. It
// returns the time just before the kill.
func (s *redisServer) restart(t *testing.T) time.Time {
	t.Helper()
	at := time.Now()
	s.kill()
	s.start(t)
	return at
}

// TestProcessesStoreForgets: a fleet of worker processes leases from a Redis without
// persistence that is killed and restarted empty in the middle of the run, and a newcomer
// claims the moment it is back: it takes worker ID 0, which the store no longer knows and
// its holder still issues under until its next renewal finds the lease gone; that holder
// then claims the next ID, another process's, and so on. Every claim after the restart is
// fresh, and its wait (one TTL after the claim) must keep every ID unique.
func TestProcessesStoreForgets(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes for about seven seconds")
	}
	// A run in which the newcomer's claim came after the holder of its ID had already
	// found its lease gone (the machine's load can delay the newcomer) did not exercise the
	// overlap: it is run again, up to 3 times. Every run asserts the invariants.
	for run := 1; ; run++ {
		why := testForget(t, fmt.Sprintf("forget%d", run))
		if why == "" || t.Failed() {
			return
		}
		if run == 3 {
			t.Errorf("after %d runs, %s", run, why)
			return
		}
		t.Logf("run %d: %s; running again", run, why)
	}
}

// testForget runs the fleet once on a redis-server of its own, failing t where an
// invariant broke, and returns why the overlap was not exercised ("" when it was).
func testForget(t *testing.T, ns string) (notExercised string) {
	srv := startRedis(t)
	defer srv.kill()
	tg := leasetest.Target{Kind: "redis", DSN: srv.dsn(), Prefix: "idgen_test:lease:"}
	const (
		ttl       = time.Second
		maxWorker = 15
		procs     = 6
	)
	dir := t.TempDir()
	var all []*leasetest.Proc
	defer func() {
		for _, p := range all {
			p.Stop()
		}
	}()
	spawn := func(name, goFile string) *leasetest.Proc {
		p := leasetest.Start(t, "fleet", name, leasetest.Spec{Target: tg, NS: ns, TTL: ttl, Max: maxWorker, Go: goFile,
			Events: filepath.Join(dir, name+".events"), IDs: filepath.Join(dir, name+".ids")})
		p.Run(t)
		all = append(all, p)
		return p
	}
	for i := range procs {
		spawn(fmt.Sprintf("p%d", i), "")
	}
	goFile := filepath.Join(dir, "go")
	newcomer := spawn("newcomer", goFile)
	fleet := all[:procs]
	// The store is new: every first claim is fresh and waits a TTL before its first ID.
	for _, p := range fleet {
		p.WaitEvent(t, "first", 1, 20*time.Second)
	}
	t0 := time.Now()
	leasetest.SleepUntil(t0.Add(ttl))
	lossAt := srv.restart(t)
	back := time.Now()
	if err := os.WriteFile(goFile, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	acquiredBefore := map[*leasetest.Proc]int{}
	for _, p := range fleet {
		for _, e := range p.Events("acquired") {
			if e.At().Before(lossAt) {
				acquiredBefore[p]++
			}
		}
	}
	// Every process loses its lease (its record is gone, or the newcomer's now) and
	// claims again, fresh; then each issues for a second more.
	for _, p := range all {
		p.WaitEvent(t, "acquired", acquiredBefore[p]+1, 20*time.Second)
	}
	leasetest.SleepUntil(time.Now().Add(ttl + time.Second))
	for _, p := range all {
		p.Signal(t, syscall.SIGTERM)
	}
	for _, p := range all {
		select {
		case <-p.Exited:
		case <-time.After(15 * time.Second):
			t.Fatalf("%s did not exit", p.Name)
		}
		if p.Err != nil {
			t.Errorf("%s: %v; stderr:\n%s", p.Name, p.Err, p.Stderr.String())
		}
		for _, e := range p.Events("error") {
			t.Errorf("%s logged an error: %s", p.Name, e.F["err"])
		}
	}
	t.Logf("redis-server killed at +%v and answering again at +%v (a TTL after the fleet's first IDs)",
		lossAt.Sub(t0).Round(time.Millisecond), back.Sub(t0).Round(time.Millisecond))

	idsOf := leasetest.CheckIDs(t, all, maxWorker)

	// Every fresh claim waited: its After is its lease's end (no drift, no skew in the
	// workers), one TTL after the claim; nothing was issued under it stamped between the
	// claim and After; and the first ID it returned was returned at or after After and
	// stamped after it.
	layout := snowflake.Classic()
	freshAfterLoss := 0
	for _, p := range all {
		if p != newcomer {
			lostAfter := false
			for _, e := range p.Events("lost") {
				lostAfter = lostAfter || !e.At().Before(lossAt)
			}
			if !lostAfter {
				t.Errorf("%s logged no loss after the restart; events: %v", p.Name, p.Events(""))
			}
		}
		for _, a := range p.Events("acquired") {
			if a.F["fresh"] != "true" {
				if !a.At().Before(lossAt) {
					t.Errorf("%s: claim at +%v after the store was emptied is not fresh", p.Name, a.At().Sub(t0).Round(time.Millisecond))
				}
				continue
			}
			w, at, after := a.Int("worker"), a.At(), time.Unix(0, a.Int("after"))
			took := time.Duration(a.Int("took"))
			// The store's clock is this machine's: the claim happened during the call.
			if claim := after.Add(-ttl); claim.Before(at.Add(-took-2*time.Millisecond)) || claim.After(at.Add(time.Millisecond)) {
				t.Errorf("%s: fresh claim of worker %d logged at +%v (call took %v) has After +%v, not a TTL after the claim",
					p.Name, w, at.Sub(t0).Round(time.Millisecond), took, after.Sub(t0).Round(time.Millisecond))
			}
			var first *leasetest.Issued
			early := 0
			for i, x := range idsOf[p] {
				parts, _ := layout.Decode(x.ID)
				if parts.Worker != w {
					continue
				}
				made, _ := layout.Time(x.ID)
				if made.After(at) && !made.After(after) {
					early++
				}
				if parts.Tick > layout.Tick(after) && (first == nil || x.ID < first.ID) {
					first = &idsOf[p][i]
				}
			}
			if early > 0 {
				t.Errorf("%s: %d IDs of worker %d stamped between its fresh claim and After", p.Name, early, w)
			}
			if first == nil {
				if !at.Before(lossAt) {
					t.Errorf("%s issued nothing after its fresh claim of worker %d", p.Name, w)
				}
				continue
			}
			made, _ := layout.Time(first.ID)
			if first.Returned.Before(after) || !made.After(after) {
				t.Errorf("%s: first ID of worker %d after its fresh claim returned at %v, stamped %v; want both after After %v",
					p.Name, w, first.Returned, made, after)
			}
			when := "first claim"
			if !at.Before(lossAt) {
				when = "claim after the loss"
				freshAfterLoss++
			}
			t.Logf("%-8s %s of worker %d at +%v: After = claim + %v; first ID returned %v after the claim, stamped %v after After",
				p.Name, when, w, at.Sub(t0).Round(time.Millisecond), after.Sub(at.Add(-took)).Round(time.Millisecond),
				first.Returned.Sub(at).Round(time.Millisecond), made.Sub(after))
		}
	}
	if freshAfterLoss < len(all) {
		t.Errorf("%d fresh claims after the restart issued IDs, want at least one per process (%d)", freshAfterLoss, len(all))
	}

	// The overlap: another process still returned IDs of the newcomer's worker ID after
	// the newcomer claimed it (what issued duplicates before claims waited).
	na := newcomer.WaitEvent(t, "acquired", 1, 0)
	nw, nat := na.Int("worker"), na.At()
	overlap, holder := time.Duration(0), ""
	for _, p := range fleet {
		for _, x := range idsOf[p] {
			if parts, _ := layout.Decode(x.ID); parts.Worker == nw && x.Returned.Sub(nat) > overlap {
				overlap, holder = x.Returned.Sub(nat), p.Name
			}
		}
	}
	if holder == "" {
		return fmt.Sprintf("no process issued under worker %d after the newcomer claimed it at +%v", nw, nat.Sub(t0).Round(time.Millisecond))
	}
	t.Logf("newcomer claimed worker %d at +%v; %s still returned IDs of it for %v after that", nw, nat.Sub(t0).Round(time.Millisecond), holder, overlap.Round(time.Millisecond))
	return ""
}
