package fleettest

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/idgen/idgen/cmd/idgen-server/internal/testserver"
)

// proc is a process the test started, stopped when the test ends.
type proc struct {
	name string
	cmd  *exec.Cmd
	log  *lockedBuffer
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func start(t *testing.T, name string, cmd *exec.Cmd) *proc {
	t.Helper()
	p := &proc{name: name, cmd: cmd, log: &lockedBuffer{}}
	cmd.Stdout, cmd.Stderr = p.log, p.log
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	t.Cleanup(func() {
		p.signal(syscall.SIGCONT)
		p.cmd.Process.Kill()
		p.cmd.Wait()
		if t.Failed() {
			t.Logf("--- %s output (tail):\n%s", name, tail(p.log.String(), 3000))
		}
	})
	return p
}

func (p *proc) signal(s syscall.Signal) error { return p.cmd.Process.Signal(s) }

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// startEtcd starts an etcd of the test's own on loopback ports and a data dir of its
// own, and returns its client endpoint.
func startEtcd(t *testing.T) (*proc, string) {
	bin, err := exec.LookPath("etcd")
	if err != nil {
		t.Fatal("etcd is missing: apt-get install -y etcd-server")
	}
	cport, pport := testserver.FreePort(t), testserver.FreePort(t)
	client := fmt.Sprintf("http://127.0.0.1:%d", cport)
	peer := fmt.Sprintf("http://127.0.0.1:%d", pport)
	p := start(t, "etcd", exec.Command(bin, "--name", "fleet", "--data-dir", filepath.Join(t.TempDir(), "etcd"),
		"--listen-client-urls", client, "--advertise-client-urls", client,
		"--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
		"--initial-cluster", "fleet="+peer, "--heartbeat-interval", "10", "--election-timeout", "100",
		"--log-level", "warn"))
	testserver.WaitFor(t, "etcd", 30*time.Second, func() error {
		res, err := http.Get(client + "/health")
		if err != nil {
			return err
		}
		res.Body.Close()
		if res.StatusCode != 200 {
			return fmt.Errorf("status %d", res.StatusCode)
		}
		return nil
	})
	return p, fmt.Sprintf("127.0.0.1:%d", cport)
}

// startRedis starts a redis-server of the test's own with the append-only file on.
func startRedis(t *testing.T) (*proc, string) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server is missing: apt-get install -y redis-server")
	}
	port := testserver.FreePort(t)
	p := start(t, "redis", exec.Command(bin, "--bind", "127.0.0.1", "--port", strconv.Itoa(port),
		"--dir", t.TempDir(), "--appendonly", "yes", "--save", ""))
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	testserver.WaitFor(t, "redis", 30*time.Second, func() error {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			return err
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(time.Second))
		c.Write([]byte("PING\r\n"))
		b := make([]byte, 7)
		n, _ := c.Read(b)
		if string(b[:n]) != "+PONG\r\n" {
			return fmt.Errorf("answered %q", b[:n])
		}
		return nil
	})
	return p, addr
}

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// serverBinary builds idgen-server once per test binary.
func serverBinary(t *testing.T) string {
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "idgen-server-fleet")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "idgen-server")
		out, err := exec.Command("go", "build", "-o", binPath, "github.com/idgen/idgen/cmd/idgen-server").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// startServer starts an idgen-server process with cfg (YAML, listen included).
func startServer(t *testing.T, name, cfg string) *proc {
	file := filepath.Join(t.TempDir(), name+".yaml")
	if err := os.WriteFile(file, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return start(t, name, exec.Command(serverBinary(t), "-config", file))
}
