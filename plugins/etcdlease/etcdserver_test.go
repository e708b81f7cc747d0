//go:build unix

package etcdlease

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// etcdServer is an etcd of a test's own, on loopback ports and in a data directory of its
// own, for tests that kill and restart it.
type etcdServer struct {
	t          testing.TB
	args       []string
	clientAddr string

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
	out  *output
}

// startEtcd starts etcd for t (a 100 ms election timeout, so 1 s leases are granted as
// asked) and kills it when t ends. It runs where the etcd tests run (IDGEN_TEST_ETCD_ENDPOINTS
// set) and skips otherwise; it fails when etcd is not on PATH.
func startEtcd(t testing.TB) *etcdServer {
	t.Helper()
	endpoints(t)
	bin, err := exec.LookPath("etcd")
	if err != nil {
		t.Fatalf("%s is set but etcd is not on PATH (Debian: apt-get install etcd-server): %v", EndpointsEnv, err)
	}
	dir := t.TempDir()
	cp, pp := freePort(t), freePort(t)
	s := &etcdServer{t: t, clientAddr: fmt.Sprintf("127.0.0.1:%d", cp)}
	curl, purl := "http://"+s.clientAddr, fmt.Sprintf("http://127.0.0.1:%d", pp)
	s.args = []string{bin, "--name", "test", "--data-dir", filepath.Join(dir, "data"),
		"--heartbeat-interval", "10", "--election-timeout", "100",
		"--listen-client-urls", curl, "--advertise-client-urls", curl,
		"--listen-peer-urls", purl, "--initial-advertise-peer-urls", purl,
		"--initial-cluster", "test=" + purl, "--logger", "zap", "--log-outputs", filepath.Join(dir, "etcd.log")}
	s.start()
	t.Cleanup(s.kill)
	return s
}

func freePort(t testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// start runs etcd and waits until it serves a read.
func (s *etcdServer) start() {
	s.t.Helper()
	cmd := exec.Command(s.args[0], s.args[1:]...)
	out := &output{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	s.mu.Lock()
	s.cmd, s.done, s.out = cmd, done, out
	s.mu.Unlock()
	c, err := dial([]string{s.clientAddr})
	if err != nil {
		s.t.Fatal(err)
	}
	defer c.Close()
	for deadline := time.Now().Add(30 * time.Second); ; {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, err := c.Get(ctx, "ping")
		cancel()
		if err == nil {
			return
		}
		select {
		case <-done:
			s.t.Fatalf("etcd exited: %s", out.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("etcd on %s does not answer: %v", s.clientAddr, err)
		}
	}
}

// kill stops etcd with SIGKILL, as a crash would, and waits for it to exit. What it
// acknowledged is in its WAL.
func (s *etcdServer) kill() {
	s.mu.Lock()
	cmd, done := s.cmd, s.done
	s.cmd = nil
	s.mu.Unlock()
	if cmd != nil {
		cmd.Process.Signal(syscall.SIGKILL)
		<-done
	}
}

// output collects what etcd writes (exec's copying goroutine writes, the test reads on
// failure): a bytes.Buffer behind a mutex.
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
