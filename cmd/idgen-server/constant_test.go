package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// serveEnv makes this test binary run main (TestMain), so that a test runs the server
// users install in a process of its own, with an environment of the test's choosing.
const serveEnv = "IDGEN_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(serveEnv) == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// benchVar is the variable that made earlier servers answer constant IDs, assembled at
// run time so that this test's binary holds it only where main's code would.
var benchVar = strings.Join([]string{"IDGEN", "BENCH", "CONSTANT"}, "_")

// TestNoConstantMode runs main with the variable that once turned on the benchmarks'
// constant answers: two calls still get two different IDs.
func TestNoConstantMode(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), serveEnv+"=1", benchVar+"=1", "XDG_CACHE_HOME="+t.TempDir(), "IDGEN_LISTEN=127.0.0.1:0")
	var stderr lockedBuilder
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		exited <- cmd.Wait()
	}()
	t.Cleanup(func() { cmd.Process.Kill() })
	var curl string
	timeout := time.After(time.Minute)
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
	go func() {
		for range lines {
		}
	}()
	seen := map[string]bool{}
	for range 3 {
		out, err := exec.Command("sh", "-c", curl).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", curl, err, out)
		}
		var r struct{ ID string }
		if err := json.Unmarshal(out, &r); err != nil || r.ID == "" {
			t.Fatalf("%s answered %s (%v)", curl, out, err)
		}
		if seen[r.ID] {
			t.Fatalf("ID %s answered twice with %s=1 set: the server has a constant mode\n%s", r.ID, benchVar, stderr.String())
		}
		seen[r.ID] = true
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
	case <-time.After(30 * time.Second):
		t.Fatal("did not stop on SIGTERM")
	}
	if strings.Contains(stderr.String(), "NOT unique") {
		t.Fatalf("the server warned of constant IDs:\n%s", stderr.String())
	}
}

// TestNoConstantModeInBinary looks through the binary main is linked into (this test's,
// which holds all of main's code) for the constant mode's variable and method, as
// `strings` would.
func TestNoConstantModeInBinary(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	for _, needle := range []string{benchVar, strings.Join([]string{"Constant", "For", "Benchmarks"}, ""), strings.Join([]string{"constant", "API"}, "")} {
		if i := bytes.Index(bin, []byte(needle)); i >= 0 {
			t.Errorf("the binary holds %q (at byte %d)", needle, i)
		}
	}
}
