//go:build unix

package leasetest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/idgen/idgen/runtime/lease"
	"github.com/idgen/idgen/runtime/snowflake"
)

// The multi-process tests run the test binary again as a worker process, the way
// stringer's end-to-end test runs itself as the tool: Main (the test package's TestMain)
// sees childEnv and runs the worker instead of the tests.
const (
	childEnv = "IDGEN_LEASE_CHILD" // "fleet", "bench" or "first"
	specEnv  = "IDGEN_LEASE_SPEC"  // a Spec in JSON
)

// Spec tells a worker process what to do. It travels as JSON in the worker's environment.
type Spec struct {
	Target Target        // the store, handed to the Opener
	NS     string        // the namespace, handed to the Opener: a table or key prefix suffix
	Events string        // file for event lines (fleet)
	IDs    string        // file for ID lines (fleet)
	TTL    time.Duration // lease TTL
	Max    int64         // highest worker ID
	Behind time.Duration // the generator's clock reads this much behind the wall clock
	N      int           // IDs to issue (bench)
	Go     string        // when set, a file whose creation the worker waits for before it claims (fleet)
}

// Opener returns a backend on tg in namespace ns (a table or a key prefix of its own),
// and what closes its connections. Each test package writes its own, since it knows its
// backends; it runs in the worker processes.
type Opener func(tg Target, ns string) (lease.Backend, io.Closer, error)

// Main is a test package's TestMain: in a worker process (started by Start or by a test
// with Env) it runs the worker on the backend open returns and exits; otherwise it runs
// the tests.
func Main(m *testing.M, open Opener) {
	switch os.Getenv(childEnv) {
	case "":
		os.Exit(m.Run())
	case "fleet":
		os.Exit(childMain(open, childFleet))
	case "bench":
		os.Exit(childMain(open, childBench))
	case "first":
		os.Exit(childMain(open, childFirst))
	}
	fmt.Fprintln(os.Stderr, "unknown", childEnv)
	os.Exit(2)
}

// Env returns the environment entries that make the test binary a worker in mode with
// spec, for a test that starts workers itself. A worker in mode "first" says "ready" on
// standard output and waits for the end of its standard input before it claims: a test
// that gives a group of them one pipe and closes it starts their claims at one moment.
func Env(mode string, spec Spec) []string {
	js, err := json.Marshal(spec)
	if err != nil {
		panic(err) // a Spec is plain data
	}
	return []string{childEnv + "=" + mode, specEnv + "=" + string(js)}
}

func childMain(open Opener, run func(Opener, Spec) error) int {
	var spec Spec
	if err := json.Unmarshal([]byte(os.Getenv(specEnv)), &spec); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 2
	}
	if err := run(open, spec); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 1
	}
	return 0
}

// behindClock is a snowflake.Clock that reads the wall clock minus d: a host whose clock
// is behind the rest of the fleet. It sleeps as the system clock does.
type behindClock struct {
	snowflake.Clock
	d time.Duration
}

func (c behindClock) Now() time.Time { return time.Now().Add(-c.d) }

// eventLog writes one line per event, "kind key=value ... at=<unix ns>", with err= last
// and quoted.
type eventLog struct {
	mu sync.Mutex
	F  *os.File
}

func (l *eventLog) printf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.F, format+"\n", args...)
}

func ns(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// childFleet leases a worker ID and issues IDs in batches of 16 a millisecond until
// SIGTERM, writing each with the wall-clock times taken just before asking for it and
// just after getting it. On SIGTERM it closes the lease (releasing it) and exits.
func childFleet(open Opener, spec Spec) error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	// A worker whose test died stops by itself.
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()

	ef, err := os.Create(spec.Events)
	if err != nil {
		return err
	}
	defer ef.Close()
	el := &eventLog{F: ef}
	idf, err := os.Create(spec.IDs)
	if err != nil {
		return err
	}
	defer idf.Close()
	el.printf("start pid=%d behind=%d at=%d", os.Getpid(), spec.Behind, time.Now().UnixNano())

	b, closer, err := open(spec.Target, spec.NS)
	if err != nil {
		return err
	}
	defer closer.Close()
	for spec.Go != "" {
		if _, err := os.Stat(spec.Go); err == nil {
			break
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		time.Sleep(time.Millisecond)
	}
	var clock snowflake.Clock
	now := time.Now
	if spec.Behind != 0 {
		c := behindClock{snowflake.SystemClock(), spec.Behind}
		clock, now = c, c.Now
	}
	cfg := lease.Config{
		Layout:    snowflake.Classic(),
		MaxWorker: spec.Max,
		TTL:       spec.TTL,
		// Wait out a clock behind the previous holder's last tick (the behind process).
		Options: snowflake.Options{Clock: clock, Rollback: snowflake.RollbackWait, MaxWait: 10 * time.Second},
		OnEvent: func(e lease.Event) {
			at := time.Now().UnixNano()
			switch e.Kind {
			case lease.Acquired:
				el.printf("acquired worker=%d fresh=%t after=%d clock=%d deadline=%d took=%d at=%d", e.Worker, e.Fresh, ns(e.After), now().UnixNano(), ns(e.Deadline), e.Took, at)
			case lease.Renewed:
				el.printf("renewed worker=%d deadline=%d took=%d at=%d", e.Worker, ns(e.Deadline), e.Took, at)
			default:
				el.printf("%v worker=%d at=%d err=%q", e.Kind, e.Worker, at, fmt.Sprint(e.Err))
			}
		},
	}
	l, err := lease.Acquire(ctx, b, cfg)
	if err != nil {
		el.printf("error at=%d err=%q", time.Now().UnixNano(), err.Error())
		return err
	}

	w := bufio.NewWriterSize(idf, 4096)
	var line []byte
	inDoubt, first := false, true
	for ctx.Err() == nil {
		for range 16 {
			stamp := time.Now().UnixNano()
			id, err := l.Next()
			if err != nil {
				switch {
				case !errors.Is(err, lease.ErrNotHeld) || !errors.Is(err, snowflake.ErrGateClosed):
					el.printf("error at=%d err=%q", time.Now().UnixNano(), err.Error())
				case !inDoubt:
					// Once per spell: the first refusal after the lease came into doubt.
					el.printf("notheld at=%d err=%q", time.Now().UnixNano(), err.Error())
					inDoubt = true
				}
				break
			}
			inDoubt = false
			if first {
				el.printf("first id=%d at=%d", id, time.Now().UnixNano())
				first = false
			}
			got := time.Now().UnixNano()
			line = strconv.AppendInt(line[:0], int64(id), 10)
			line = append(line, ' ')
			line = strconv.AppendInt(line, stamp, 10)
			line = append(line, ' ')
			line = strconv.AppendInt(line, got, 10)
			line = append(line, '\n')
			w.Write(line)
		}
		if err := w.Flush(); err != nil {
			return err
		}
		time.Sleep(time.Millisecond)
	}
	if err := l.Close(context.Background()); err != nil {
		kind := "error"
		if errors.Is(err, lease.ErrLost) {
			// The lease lapsed (a renewal starved on a loaded machine) and passed on: the
			// release finds another holder, as it must.
			kind = "closelost"
		}
		el.printf("%s at=%d err=%q", kind, time.Now().UnixNano(), err.Error())
	}
	el.printf("exit at=%d", time.Now().UnixNano())
	return nil
}

// childBench leases a worker ID, says "ready", waits for a line on stdin, issues spec.N IDs
// as fast as one goroutine can, says "done <nanoseconds>" and releases.
func childBench(open Opener, spec Spec) error {
	ctx := context.Background()
	b, closer, err := open(spec.Target, spec.NS)
	if err != nil {
		return err
	}
	defer closer.Close()
	l, err := lease.Acquire(ctx, b, lease.Config{Layout: snowflake.Classic(), TTL: spec.TTL, MaxWorker: spec.Max})
	if err != nil {
		return err
	}
	defer l.Close(ctx)
	// On a new store the first claim of each ID waits about a TTL before it issues: wait
	// here, outside the timing.
	if _, err := l.WorkerID(ctx); err != nil {
		return err
	}
	fmt.Println("ready")
	if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
		return err
	}
	start := time.Now()
	for range spec.N {
		if _, err := l.Next(); err != nil {
			return err
		}
	}
	fmt.Println("done", time.Since(start).Nanoseconds())
	return nil
}

// childFirst opens the backend (no connection yet: sql.Open and redis.NewClient connect on
// first use), waits at the group's barrier, acquires a worker ID, prints it and exits
// holding it, so that the IDs of the group are distinct.
func childFirst(open Opener, spec Spec) error {
	b, closer, err := open(spec.Target, spec.NS)
	if err != nil {
		return err
	}
	defer closer.Close()
	if err := ready(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// The worker ID claimed, from the Acquired event: WorkerID would first wait out the
	// fresh claim's TTL (every claim on a new store is fresh), which proves nothing here.
	// The claim is held: Acquire returned, the TTL is far off, and the process exits
	// holding it.
	worker := int64(-1)
	cfg := lease.Config{Layout: snowflake.Classic(), MaxWorker: spec.Max, TTL: spec.TTL, OnEvent: func(e lease.Event) {
		if e.Kind == lease.Acquired && worker < 0 {
			worker = e.Worker
		}
	}}
	if _, err := lease.Acquire(ctx, b, cfg); err != nil {
		return err
	}
	if worker < 0 {
		return errors.New("lease.Acquire returned before its Acquired event")
	}
	fmt.Println(worker)
	return nil
}

// ready tells the parent the worker is ready ("ready" on standard output) and blocks until
// the parent releases the group by closing the worker's standard input, so that the
// workers of a group claim at the same moment.
func ready() error {
	if _, err := fmt.Println("ready"); err != nil {
		return err
	}
	_, err := io.Copy(io.Discard, os.Stdin)
	return err
}
