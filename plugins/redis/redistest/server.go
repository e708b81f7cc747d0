package redistest

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Server is a redis-server of the test's own, on a loopback port, with its files in a
// temporary directory of the test; see Start.
type Server struct {
	// Addr is host:port.
	Addr string
	// URL is redis://Addr/0, the form IDGEN_TEST_REDIS_DSN takes.
	URL string

	t    testing.TB
	args []string

	mu   sync.Mutex
	proc *process // nil while stopped
}

// Start starts redis-server on a free port of 127.0.0.1, without persistence (--save ""
// --appendonly no) unless args (extra command-line options, which override the defaults:
// "--appendonly", "yes") turn it on, waits until it answers, and kills it when the test
// ends. It runs when redis-server is on PATH; without it the test is skipped naming
// IDGEN_TEST_REDIS_DSN when that is unset, and fails when it is set (the environment asks
// for Redis tests that cannot run).
func Start(t testing.TB, args ...string) *Server {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv(Env) == "" {
			t.Skip("set " + Env + " and put redis-server on PATH to run against a Redis of the test's own")
			return nil
		}
		t.Fatalf("redistest: %s is set but redis-server is not on PATH: tests that start their own Redis need it", Env)
		return nil
	}
	dir := t.TempDir()
	var lastErr error
	for range 5 { // a free port may be taken between finding it and redis-server binding it
		port, err := freePort()
		if err != nil {
			t.Fatal(err)
		}
		s := &Server{Addr: "127.0.0.1:" + strconv.Itoa(port), t: t}
		s.URL = "redis://" + s.Addr + "/0"
		s.args = append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
			"--dir", dir, "--daemonize", "no", "--logfile", ""}, args...)
		s.args = append([]string{bin}, s.args...)
		if lastErr = s.start(); lastErr == nil {
			t.Cleanup(s.stop)
			return s
		}
	}
	t.Fatalf("redistest: starting redis-server: %v", lastErr)
	return nil
}

// Client returns a client of the server, closed when the test ends.
func (s *Server) Client() *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: s.Addr})
	s.t.Cleanup(func() { c.Close() })
	return c
}

// Restart kills the server with SIGKILL, as a crash would, and starts it again on the same
// port and directory: what it kept on disk (its AOF, with --appendonly yes) is all it
// knows afterwards.
func (s *Server) Restart() {
	s.t.Helper()
	s.stop()
	if err := s.start(); err != nil {
		s.t.Fatalf("redistest: restarting redis-server: %v", err)
	}
}

// Kill kills the server with SIGKILL, as a crash would, and waits for it to exit; Start
// runs it again. Between the two the server is down, for tests that watch what clients do
// meanwhile.
func (s *Server) Kill() { s.stop() }

// Start runs a server stopped by Kill again on the same port and directory, and waits
// until it answers.
func (s *Server) Start() {
	s.t.Helper()
	if err := s.start(); err != nil {
		s.t.Fatalf("redistest: starting redis-server again: %v", err)
	}
}

// start runs the server and waits until it answers PING.
func (s *Server) start() error {
	cmd := exec.Command(s.args[0], s.args[1:]...)
	out := &output{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return err
	}
	p := &process{cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	c := redis.NewClient(&redis.Options{Addr: s.Addr, MaxRetries: -1})
	defer c.Close()
	deadline := time.Now().Add(timeout)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := c.Ping(ctx).Err()
		cancel()
		if err == nil {
			break
		}
		select {
		case <-p.done:
			return fmt.Errorf("redis-server exited (%v): %s", p.err, out.String())
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			p.kill()
			return fmt.Errorf("redis-server on %s did not answer within %v: %v: %s", s.Addr, timeout, err, out.String())
		}
	}
	s.mu.Lock()
	s.proc = p
	s.mu.Unlock()
	return nil
}

// stop kills the server and waits for it to exit.
func (s *Server) stop() {
	s.mu.Lock()
	p := s.proc
	s.proc = nil
	s.mu.Unlock()
	if p != nil {
		p.kill()
	}
}

// process is a running redis-server.
type process struct {
	cmd  *exec.Cmd
	done chan struct{} // closed when it has exited
	err  error         // its exit status, set before done is closed
}

func (p *process) kill() {
	p.cmd.Process.Kill()
	<-p.done
}

// freePort returns a loopback TCP port nothing listens on at the moment.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// StartCluster starts n (at least 3) servers as Start does, with --cluster-enabled yes and
// args, joins them into a cluster of n masters and no replicas with redis-cli --cluster
// create, and waits until every node reports cluster_state:ok. It needs redis-cli beside
// redis-server.
func StartCluster(t testing.TB, n int, args ...string) []*Server {
	t.Helper()
	nodes := make([]*Server, n)
	addrs := make([]string, n)
	for i := range nodes {
		nodes[i] = Start(t, append([]string{"--cluster-enabled", "yes", "--cluster-node-timeout", "5000"}, args...)...)
		addrs[i] = nodes[i].Addr
	}
	cli, err := exec.LookPath("redis-cli")
	if err != nil {
		t.Fatalf("redistest: a Redis Cluster needs redis-cli: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, cli, append(append([]string{"--cluster", "create"}, addrs...), "--cluster-replicas", "0", "--cluster-yes")...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("redistest: redis-cli --cluster create: %v: %s", err, out)
	}
	for _, node := range nodes {
		c := node.Client()
		for {
			info, err := c.ClusterInfo(ctx).Result()
			if err == nil && strings.Contains(info, "cluster_state:ok") {
				break
			}
			select {
			case <-ctx.Done():
				t.Fatalf("redistest: cluster node %s not ok within %v: %v %s", node.Addr, timeout, err, info)
			case <-time.After(10 * time.Millisecond):
			}
		}
	}
	return nodes
}

// output collects what a redis-server writes (exec's copying goroutine writes, the test
// reads on failure): a bytes.Buffer behind a mutex.
type output struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (o *output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.Write(p)
}

func (o *output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.String()
}
