//go:build unix

package segment_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/idgen/idgen/integration/internal/testdb"
	"github.com/idgen/idgen/integration/internal/testproc"
	"github.com/idgen/idgen/runtime/segment"
)

// The multi-process test runs this test binary again as a worker process, the way
// stringer's end-to-end test runs itself as the tool: TestMain sees childEnv and runs the
// worker instead of the tests.
const (
	childEnv = "IDGEN_SEGMENT_CHILD" // "draw" or "first"
	specEnv  = "IDGEN_SEGMENT_SPEC"  // a childSpec in JSON
)

// childSpec tells a worker process what to do.
type childSpec struct {
	Target target
	Tag    string
	IDs    string // file for ID lines
	// Unavailable: on a *UnavailableError, count it and go on instead of failing (a store
	// that forgot makes the Allocator refuse blocks for a while).
	Unavailable bool
}

func TestMain(m *testing.M) {
	var run func(childSpec) error
	switch os.Getenv(childEnv) {
	case "":
		os.Exit(m.Run())
	case "draw":
		run = childDraw
	case "first":
		run = childFirst
	default:
		fmt.Fprintln(os.Stderr, "unknown", childEnv)
		os.Exit(2)
	}
	var spec childSpec
	if err := json.Unmarshal([]byte(os.Getenv(specEnv)), &spec); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(2)
	}
	if err := run(spec); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// childFirst opens the store (no connection yet: sql.Open and redis.NewClient connect on
// first use), waits at the group's barrier, then takes the first ID of spec.Tag and
// prints it.
func childFirst(spec childSpec) error {
	s, closer, err := open(spec.Target)
	if err != nil {
		return err
	}
	defer closer.Close()
	a, err := segment.New(s, spec.Tag, segment.Options{Step: 10, MinStep: 10, MaxStep: 10})
	if err != nil {
		return err
	}
	if err := testproc.Ready(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	id, err := a.NextInt64(ctx)
	if err != nil {
		return err
	}
	fmt.Println(id)
	return nil
}

// TestFreshDatabase: eight processes start together on a new database (no table yet) and
// take the first ID of a new tag at the same moment, on every store, three rounds each:
// no process fails, and their IDs are eight distinct blocks' firsts. Before the creation
// race was handled, 3 processes on PostgreSQL met it 11 to 24 times in a run.
func TestFreshDatabase(t *testing.T) {
	const procs, rounds = 8, 3
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			for round := range rounds {
				t.Run(fmt.Sprint(round), func(t *testing.T) {
					tg := k.setup(t, "fresh")
					js, _ := json.Marshal(childSpec{Target: tg, Tag: "order"})
					g := testproc.Start(t, procs, func(int) []string {
						return []string{childEnv + "=first", specEnv + "=" + string(js)}
					})
					g.Release()
					ids := map[int64]int{}
					for i := range procs {
						if line := g.Line(i); line != "" {
							id, err := strconv.ParseInt(line, 10, 64)
							if err != nil {
								t.Fatalf("process %d: %q", i, line)
							}
							ids[id]++
						}
					}
					failed := 0
					for _, err := range g.Wait() {
						if err != nil {
							t.Error(err)
							failed++
						}
					}
					for id, n := range ids {
						if n > 1 || (id-1)%10 != 0 {
							t.Errorf("ID %d taken by %d processes: want the first of a block of 10, once", id, n)
						}
					}
					t.Logf("%d processes at once on a new %s database: %d failed, first IDs %v", procs, k.name, failed, slices.Sorted(maps.Keys(ids)))
				})
			}
		})
	}
}

// childDraw draws IDs of spec.Tag, 100 then a millisecond's pause, until SIGTERM, writing
// one per line and flushing every 100. Small, fast-growing steps make the processes
// reserve often, so their reservations interleave.
func childDraw(spec childSpec) error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, time.Minute) // a worker whose test died stops
	defer cancel()
	f, err := os.Create(spec.IDs)
	if err != nil {
		return err
	}
	defer f.Close()
	s, closer, err := open(spec.Target)
	if err != nil {
		return err
	}
	defer closer.Close()
	a, err := segment.New(s, spec.Tag, segment.Options{Step: 5, MinStep: 5, MaxStep: 400, Threshold: 0.2, Target: 20 * time.Millisecond})
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	var line []byte
	unavailable, firstUnavailable := 0, ""
	for ctx.Err() == nil {
		for range 100 {
			id, err := a.NextInt64(ctx)
			if err != nil {
				if ctx.Err() != nil {
					break
				}
				if spec.Unavailable && errors.Is(err, segment.ErrUnavailable) {
					if unavailable == 0 {
						var ue *segment.UnavailableError
						firstUnavailable = fmt.Sprintf("; first unavailable (%T, tag %q as *UnavailableError: %t): %v", err, tagOf(err), errors.As(err, &ue), err)
					}
					unavailable++
					break
				}
				return err
			}
			line = strconv.AppendInt(line[:0], id, 10)
			w.Write(append(line, '\n'))
		}
		if err := w.Flush(); err != nil {
			return err
		}
		time.Sleep(time.Millisecond)
	}
	st := a.Stats()
	fmt.Fprintf(os.Stderr, "child %d: %d blocks, %d waits, %d failed reservations, %d unavailable, last step %d%s\n",
		os.Getpid(), st.Reserved, st.Waited, st.Failed, unavailable, st.Step, firstUnavailable)
	return w.Flush()
}

// tagOf returns the tag of an *UnavailableError in err's chain, or "".
func tagOf(err error) string {
	var ue *segment.UnavailableError
	if errors.As(err, &ue) {
		return ue.Tag
	}
	return ""
}

// TestProcesses runs four processes drawing from one new tag on each store, kills one
// with SIGKILL mid-run and stops the others: every ID is distinct across processes and
// increasing within each.
func TestProcesses(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			tg := k.setup(t, "procs")
			// No table yet: the processes create it as they start (TestFreshDatabase
			// starts them at the same moment).
			dir := t.TempDir()
			const procs = 4
			var cmds []*exec.Cmd
			var stderr []*bytes.Buffer
			for i := range procs {
				js, _ := json.Marshal(childSpec{Target: tg, Tag: "order", IDs: filepath.Join(dir, fmt.Sprintf("ids%d", i))})
				cmd := exec.Command(os.Args[0], "-test.run=^$")
				cmd.Env = append(os.Environ(), childEnv+"=draw", specEnv+"="+string(js))
				var buf bytes.Buffer
				cmd.Stderr = &buf
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				cmds, stderr = append(cmds, cmd), append(stderr, &buf)
			}
			defer func() {
				for _, c := range cmds {
					c.Process.Kill()
				}
			}()
			read := func(i int) []int64 {
				t.Helper()
				data, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("ids%d", i)))
				if err != nil && !os.IsNotExist(err) {
					t.Fatal(err)
				}
				var ids []int64
				for line := range bytes.Lines(data) {
					if line[len(line)-1] != '\n' {
						break // the killed process's last, partial line
					}
					id, err := strconv.ParseInt(string(line[:len(line)-1]), 10, 64)
					if err != nil {
						t.Fatalf("process %d: %q: %v", i, line, err)
					}
					ids = append(ids, id)
				}
				return ids
			}
			// Kill process 0 once it has drawn a few thousand IDs, then let the others run on.
			waitFor(t, "process 0 to draw", func() bool { return len(read(0)) >= 3000 })
			if err := cmds[0].Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			cmds[0].Wait()
			killedAt := len(read(0))
			killedMax := read(0)[killedAt-1]
			// The survivors go on past everything the killed process had reserved. How
			// soon depends on the machine's load (SQLite's write lock is not fair, so one
			// process can wait out several rounds), so the test waits for it, bounded.
			for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
				behind := -1
				for i := 1; i < procs; i++ {
					if ids := read(i); len(ids) == 0 || ids[len(ids)-1] <= killedMax {
						behind = i
						break
					}
				}
				if behind < 0 {
					break
				}
				if time.Now().After(deadline) {
					t.Errorf("process %d did not get past the killed process's %d within 30 s", behind, killedMax)
					break
				}
			}
			time.Sleep(300 * time.Millisecond)
			for _, c := range cmds[1:] {
				c.Process.Signal(syscall.SIGTERM)
			}
			for i, c := range cmds[1:] {
				if err := c.Wait(); err != nil {
					t.Errorf("process %d: %v: %s", i+1, err, stderr[i+1])
				}
			}

			var all []int64
			for i := range procs {
				ids := read(i)
				for j := 1; j < len(ids); j++ {
					if ids[j] <= ids[j-1] {
						t.Fatalf("process %d: ID %d after %d", i, ids[j], ids[j-1])
					}
				}
				if len(ids) == 0 {
					t.Fatalf("process %d drew nothing", i)
				}
				t.Logf("process %d: %6d IDs, %d..%d %s", i, len(ids), ids[0], ids[len(ids)-1], bytes.TrimSpace(stderr[i].Bytes()))
				all = append(all, ids...)
			}
			slices.Sort(all)
			dups := 0
			for i := 1; i < len(all); i++ {
				if all[i] == all[i-1] {
					dups++
				}
			}
			if dups > 0 {
				t.Errorf("%d duplicate IDs among %d", dups, len(all))
			}
			t.Logf("%d IDs from %d processes (process 0 killed after %d), %d duplicates; highest %d, so %d IDs (%.1f%%) are gaps",
				len(all), procs, killedAt, dups, all[len(all)-1], all[len(all)-1]-int64(len(all)), 100*float64(all[len(all)-1]-int64(len(all)))/float64(all[len(all)-1]))
		})
	}
}

// readIDs reads the ID lines of a draw child, stopping at a partial last line.
func readIDs(t *testing.T, path string) []int64 {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var ids []int64
	for line := range bytes.Lines(data) {
		if line[len(line)-1] != '\n' {
			break
		}
		id, err := strconv.ParseInt(string(line[:len(line)-1]), 10, 64)
		if err != nil {
			t.Fatalf("%s: %q: %v", path, line, err)
		}
		ids = append(ids, id)
	}
	return ids
}

// TestRedisForgets measures what redissegment.Options.AllowNoPersistence accepts: four
// processes draw from one tag on a Redis of the test's own without persistence, opted in,
// and the test runs FLUSHALL (what a restart without data does) while they run. Each
// process still hands out strictly increasing IDs (its Allocator refuses blocks not above
// what it had, and that is all this test asserts); across processes IDs repeat, and the
// test reports how many.
func TestRedisForgets(t *testing.T) {
	srv := testdb.StartRedis(t)
	tg := target{Kind: "redis", DSN: srv.URL, Prefix: "forgets:"}
	dir := t.TempDir()
	const procs = 4
	var cmds []*exec.Cmd
	var stderr []*bytes.Buffer
	path := func(i int) string { return filepath.Join(dir, fmt.Sprintf("ids%d", i)) }
	for i := range procs {
		js, _ := json.Marshal(childSpec{Target: tg, Tag: "order", IDs: path(i), Unavailable: true})
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), childEnv+"=draw", specEnv+"="+string(js))
		var buf bytes.Buffer
		cmd.Stderr = &buf
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, stderr = append(cmds, cmd), append(stderr, &buf)
	}
	defer func() {
		for _, c := range cmds {
			c.Process.Kill()
		}
	}()
	drawn := func(n int) func() bool {
		return func() bool {
			for i := range procs {
				if len(readIDs(t, path(i))) < n {
					return false
				}
			}
			return true
		}
	}
	waitFor(t, "every process to draw 3,000 IDs", drawn(3000))
	before := make([]int, procs)
	for i := range procs {
		before[i] = len(readIDs(t, path(i)))
	}
	if err := srv.Client().FlushAll(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "every process to draw 3,000 more", func() bool {
		for i := range procs {
			if len(readIDs(t, path(i))) < before[i]+3000 {
				return false
			}
		}
		return true
	})
	for _, c := range cmds {
		c.Process.Signal(syscall.SIGTERM)
	}
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Errorf("process %d: %v: %s", i, err, stderr[i])
		}
	}
	count := map[int64]int{}
	total := 0
	for i := range procs {
		ids := readIDs(t, path(i))
		for j := 1; j < len(ids); j++ {
			if ids[j] <= ids[j-1] {
				t.Fatalf("process %d: ID %d after %d: one process repeated or went back", i, ids[j], ids[j-1])
			}
		}
		for _, id := range ids {
			count[id]++
		}
		total += len(ids)
		t.Logf("process %d: %d IDs (%d before FLUSHALL), %d..%d; %s", i, len(ids), before[i], ids[0], ids[len(ids)-1], bytes.TrimSpace(stderr[i].Bytes()))
	}
	dups := 0
	for _, n := range count {
		dups += n - 1
	}
	t.Logf("Redis without persistence, opted in, FLUSHALL mid-run: %d IDs from %d processes, %d handed out more than once", total, procs, dups)
}
