package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSIGTERMRemovesTempDir runs the command as a user would, stops it with SIGTERM once
// it listens, and checks that it exits cleanly and leaves no temporary database behind.
func TestSIGTERMRemovesTempDir(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the command: skipped in -short mode")
	}
	bin := filepath.Join(t.TempDir(), "orders")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	tmp := t.TempDir()
	cmd := exec.Command(bin, "-addr", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := bufio.NewScanner(stderr)
	var log []string
	for lines.Scan() {
		log = append(log, lines.Text())
		if strings.Contains(lines.Text(), "listening on") {
			break
		}
	}
	if entries, _ := filepath.Glob(filepath.Join(tmp, "idgen-orders-*")); len(entries) != 1 {
		t.Fatalf("while serving, %d temporary directories (log: %q)", len(entries), log)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for lines.Scan() {
		log = append(log, lines.Text())
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v (log: %q)", err, log)
		}
	case <-time.After(time.Minute):
		t.Fatalf("still running a minute after SIGTERM (log: %q)", log)
	}
	if entries, _ := filepath.Glob(filepath.Join(tmp, "idgen-orders-*")); len(entries) != 0 {
		t.Errorf("left behind after SIGTERM: %v (log: %q)", entries, log)
	}
}
