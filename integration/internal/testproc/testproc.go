// Package testproc runs copies of the test binary as child processes that start a step
// together, for tests of what many processes do at the same moment (create a table on a
// new database, claim a lease): the children get ready (connect, load) at their own pace,
// say so, and block until the parent releases them all at once by closing the pipe they
// share as standard input.
//
// The test binary's TestMain recognises a child by an environment variable of the test's
// choosing and runs the child's code instead of the tests, as stringer's end-to-end test
// does; the child calls Ready before the step and writes its results on standard output.
package testproc

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
)

// Ready tells the parent the child is ready ("ready" on standard output) and blocks until
// the parent releases the group (end of file on standard input).
func Ready() error {
	if _, err := fmt.Println("ready"); err != nil {
		return err
	}
	_, err := io.Copy(io.Discard, os.Stdin)
	return err
}

// Group is n children started by Start.
type Group struct {
	t       testing.TB
	cmds    []*exec.Cmd
	outs    []*bufio.Reader
	errs    []*Output
	release *os.File // the write end of the children's standard input
	ready   bool     // WaitReady has seen every child ready
}

// Start runs n copies of the test binary with no tests selected (-test.run=^$) and the
// test's environment plus env(i), each with standard input the read end of one pipe. The
// children are killed, if still running, when the test ends.
func Start(t testing.TB, n int, env func(i int) []string) *Group {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	g := &Group{t: t, release: w}
	t.Cleanup(func() {
		w.Close()
		for _, c := range g.cmds {
			c.Process.Kill()
			c.Wait()
		}
	})
	defer r.Close() // the children have their copies
	for i := range n {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), env(i)...)
		cmd.Stdin = r
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		errBuf := &Output{}
		cmd.Stderr = errBuf
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		g.cmds = append(g.cmds, cmd)
		g.outs = append(g.outs, bufio.NewReader(stdout))
		g.errs = append(g.errs, errBuf)
	}
	return g
}

// WaitReady waits until every child has said it is ready. It fails the test if a child
// writes anything else first or exits.
func (g *Group) WaitReady() {
	g.t.Helper()
	if g.ready {
		return
	}
	for i := range g.cmds {
		if line := g.Line(i); line != "ready" {
			g.t.Fatalf("child %d: %q before ready; stderr: %s", i, line, g.errs[i].String())
		}
	}
	g.ready = true
}

// Release waits until every child is ready (WaitReady), then releases them all at once.
func (g *Group) Release() {
	g.t.Helper()
	g.WaitReady()
	g.release.Close()
}

// Line returns the next line child i writes on standard output, without the newline, or
// "" once it has closed it.
func (g *Group) Line(i int) string {
	line, _ := g.outs[i].ReadString('\n')
	return strings.TrimSuffix(line, "\n")
}

// Wait waits for every child to exit and returns, per child, nil or an error carrying its
// exit status and standard error.
func (g *Group) Wait() []error {
	errs := make([]error, len(g.cmds))
	for i, c := range g.cmds {
		io.Copy(io.Discard, g.outs[i]) // Wait must not run before output is read
		if err := c.Wait(); err != nil {
			errs[i] = fmt.Errorf("child %d: %w: %s", i, err, strings.TrimSpace(g.errs[i].String()))
		}
	}
	return errs
}

// Stderr returns what child i has written on standard error so far.
func (g *Group) Stderr(i int) string { return g.errs[i].String() }

// Output collects what a child process writes (exec's copying goroutine writes, the test
// reads): a bytes.Buffer behind a mutex.
type Output struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write implements io.Writer.
func (b *Output) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// String returns what was written so far.
func (b *Output) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
