package consumetest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/idgen/idgen/integration/internal/testproc"
	"github.com/idgen/idgen/runtime/consume"
)

// Report is a line a consumer process writes: its counts so far, and whether it is the
// last (the process stopped on SIGTERM).
type Report struct {
	consume.Counts
	Final bool
}

// Consumer is what Serve runs: an adapter's Consumer.
type Consumer interface {
	Run(ctx context.Context) error
	Stats() consume.Counts
}

// Serve is the body of a consumer process: it says it is ready, runs c until SIGTERM, and
// writes a Report on standard output every 50 ms and a final one when Run returned. The
// test binary's TestMain calls it when it recognises itself as a child.
func Serve(c Consumer) error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	var mu sync.Mutex // one line at a time
	out := json.NewEncoder(os.Stdout)
	write := func(r Report) {
		mu.Lock()
		defer mu.Unlock()
		out.Encode(r)
	}
	done, ticking := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(ticking)
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				write(Report{Counts: c.Stats()})
			case <-done:
				return
			}
		}
	}()
	fmt.Println(`"ready"`)
	err := c.Run(ctx)
	close(done)
	<-ticking // so that the final Report is the last line
	write(Report{Counts: c.Stats(), Final: true})
	return err
}

// Process is a consumer process: the test binary run again, with no tests selected, as a
// child whose TestMain calls Serve.
type Process struct {
	cmd    *exec.Cmd
	exited chan struct{}
	err    error // from Wait, once exited is closed
	stderr testproc.Output

	mu   sync.Mutex
	last Report
}

// Start runs the test binary with the test's environment plus env, waits until the child
// is ready, and kills it, if still running, when the test ends.
func Start(t testing.TB, env ...string) *Process {
	t.Helper()
	p := &Process{exited: make(chan struct{})}
	p.cmd = exec.Command(os.Args[0], "-test.run=^$")
	p.cmd.Env = append(os.Environ(), env...)
	p.cmd.Stderr = &p.stderr
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if sc.Text() == `"ready"` {
				close(ready)
				continue
			}
			var r Report
			if json.Unmarshal(sc.Bytes(), &r) == nil {
				p.mu.Lock()
				p.last = r
				p.mu.Unlock()
			}
		}
		p.err = p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(p.Kill)
	select {
	case <-ready:
	case <-p.exited:
		t.Fatalf("consumer process exited before it was ready: %v: %s", p.err, p.stderr.String())
	}
	return p
}

// Kill sends SIGKILL, as a crash would, and waits for the process to exit.
func (p *Process) Kill() {
	p.cmd.Process.Kill()
	<-p.exited
}

// Stop sends SIGTERM and waits for the process to exit: nil if it stopped cleanly and wrote
// its final Report.
func (p *Process) Stop() error {
	p.cmd.Process.Signal(syscall.SIGTERM)
	<-p.exited
	if p.err != nil {
		return fmt.Errorf("consumer process: %w: %s", p.err, p.stderr.String())
	}
	if !p.Report().Final {
		return errors.New("consumer process stopped without its final counts")
	}
	return nil
}

// Stderr returns what the process wrote on its standard error so far.
func (p *Process) Stderr() string { return p.stderr.String() }

// Report returns the latest Report the process wrote.
func (p *Process) Report() Report {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.last
}

// Sum adds up the latest Reports of ps.
func Sum(ps []*Process) consume.Counts {
	var total consume.Counts
	for _, p := range ps {
		c := p.Report()
		total.Processed += c.Processed
		total.Duplicate += c.Duplicate
		total.Failed += c.Failed
		total.DeadLettered += c.DeadLettered
		total.NoKey += c.NoKey
		total.Paused += c.Paused
		total.Redelivered += c.Redelivered
	}
	return total
}
