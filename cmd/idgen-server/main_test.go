package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/idgen/idgen/cmd/idgen-server/internal/config"
	"github.com/idgen/idgen/cmd/idgen-server/internal/testserver"
)

// TestGoRunDefault runs `go run .` as a newcomer would, with nothing configured (a fresh
// cache directory, so a new SQLite file), and runs the curl line it prints. Only the
// port is the test's own. Then SIGTERM: it drains and releases the lease.
func TestGoRunDefault(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the server with go run")
	}
	if _, err := exec.LookPath("curl"); err != nil {
		t.Fatal("curl is needed: apt-get install -y curl")
	}
	// A cache directory of its own makes a fresh SQLite file; Go's own caches stay where
	// they are, or go run would download and compile everything again.
	goenv, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	caches := strings.Fields(string(goenv))
	cmd := exec.Command("go", "run", ".")
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+t.TempDir(), "GOCACHE="+caches[0], "GOMODCACHE="+caches[1],
		"IDGEN_LISTEN=127.0.0.1:"+strconv.Itoa(testserver.FreePort(t)))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // go run does not forward SIGTERM
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr lockedBuilder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	})
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		exited <- cmd.Wait()
	}()
	var curl string
	timeout := time.After(6 * time.Minute) // the first go run compiles everything
	for curl == "" {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("exited without a curl line; stderr:\n%s", stderr.String())
			}
			if s := strings.TrimSpace(l); strings.HasPrefix(s, "curl ") {
				curl = s
			}
		case <-timeout:
			t.Fatalf("no curl line; stderr:\n%s", stderr.String())
		}
	}
	// The line works at once: the server prints it only once it listens, and a fresh
	// SQLite lease is ready within its 500 ms TTL; the curl call waits for that inside
	// the server, not here.
	out, err := exec.Command("sh", "-c", curl).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", curl, err, out)
	}
	var r struct{ ID, Text string }
	if err := json.Unmarshal(out, &r); err != nil || r.ID == "" || r.Text != r.ID {
		t.Fatalf("%s answered %s (%v)", curl, out, err)
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	go func() {
		for range lines {
		}
	}()
	select {
	case <-exited:
	case <-time.After(30 * time.Second):
		t.Fatal("did not stop on SIGTERM")
	}
	if !strings.Contains(stderr.String(), `"event":"released"`) {
		t.Fatalf("the lease was not released:\n%s", stderr.String())
	}
}

// curlRE finds the curl lines of the README's sh blocks.
var curlRE = regexp.MustCompile(`(?m)^curl .*$`)

// TestREADMECurl runs every curl line of the README's sh blocks against the embedded
// default, each of which must succeed (-f: no HTTP error) and answer something.
func TestREADMECurl(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Fatal("curl is needed: apt-get install -y curl")
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	s := testserver.Start(t, string(config.Default()))
	waitReady(t, s.URL)
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	var blocks []string
	for _, part := range strings.Split(string(readme), "```sh\n")[1:] {
		blocks = append(blocks, strings.SplitN(part, "```", 2)[0])
	}
	n := 0
	for _, b := range blocks {
		for _, line := range curlRE.FindAllString(b, -1) {
			n++
			cmd := strings.ReplaceAll(line, "http://127.0.0.1:7070", s.URL)
			out, err := exec.Command("sh", "-c", cmd).CombinedOutput()
			if err != nil || len(out) == 0 {
				t.Errorf("%s: %v\n%s", line, err, out)
			}
		}
	}
	if n < 10 {
		t.Fatalf("only %d curl lines found in the README", n)
	}
}

func waitReady(t *testing.T, url string) {
	testserver.WaitFor(t, "ready", 10*time.Second, func() error {
		res, err := http.Get(url + "/readyz")
		if err != nil {
			return err
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			return &notReady{string(b)}
		}
		return nil
	})
}

type notReady struct{ s string }

func (e *notReady) Error() string { return e.s }

// lockedBuilder is a strings.Builder the command writes while the test reads it.
type lockedBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuilder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuilder) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
