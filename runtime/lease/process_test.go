//go:build unix

package lease_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/idgen/idgen/runtime/snowflake"
)

// target says where a backend lives, in a form a child process can be handed: the kind
// of store, its DSN, and for Redis the key prefix of this test run.
type target struct {
	Kind   string // sqlite, postgres, mysql, redis, rediscluster (DSN: comma-separated addresses)
	DSN    string
	Prefix string
	// Persistent says the server keeps its data (a test's own with the AOF on): the
	// store is made without AllowNoPersistence. The machine's shared Redis keeps nothing
	// on disk, and tests on it opt in: nothing they store outlives them.
	Persistent bool
}

// kind is a store the tests run against: its name and how a test gets one.
type kind struct {
	name  string
	setup func(t testing.TB) target
}

// proc is a worker process started by a test.
type proc struct {
	name   string
	spec   childSpec
	cmd    *exec.Cmd
	exited chan struct{}
	err    error // from Wait, once exited is closed
	stderr bytes.Buffer
}

// start runs the test binary as a worker process in mode with spec.
func start(t *testing.T, mode, name string, spec childSpec) *proc {
	t.Helper()
	js, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	p := &proc{name: name, spec: spec, exited: make(chan struct{})}
	p.cmd = exec.Command(os.Args[0], "-test.run=^$")
	p.cmd.Env = append(os.Environ(), childEnv+"="+mode, specEnv+"="+string(js))
	p.cmd.Stderr = &p.stderr
	return p
}

func (p *proc) run(t *testing.T) {
	t.Helper()
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(p.stop)
}

// stop kills the worker unless it has exited, and waits for it.
func (p *proc) stop() {
	select {
	case <-p.exited:
	default:
		p.cmd.Process.Signal(syscall.SIGCONT)
		p.cmd.Process.Kill()
		<-p.exited
	}
}

// signal sends sig and returns the time just before it was sent.
func (p *proc) signal(t *testing.T, sig syscall.Signal) time.Time {
	t.Helper()
	at := time.Now()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatalf("%s: %v: %v", p.name, sig, err)
	}
	return at
}

// event is a line of a worker's event log: its kind and fields.
type event struct {
	kind string
	f    map[string]string
}

func (e event) int(k string) int64 {
	v, _ := strconv.ParseInt(e.f[k], 10, 64)
	return v
}

func (e event) at() time.Time { return time.Unix(0, e.int("at")) }

func readEvents(path string) []event {
	data, _ := os.ReadFile(path)
	var evs []event
	for line := range strings.Lines(string(data)) {
		line = strings.TrimSuffix(line, "\n")
		kind, rest, _ := strings.Cut(line, " ")
		e := event{kind: kind, f: map[string]string{}}
		for rest != "" {
			kv := rest
			if strings.HasPrefix(rest, "err=") {
				rest = ""
			} else {
				kv, rest, _ = strings.Cut(rest, " ")
			}
			k, v, _ := strings.Cut(kv, "=")
			if k == "err" {
				v, _ = strconv.Unquote(v)
			}
			e.f[k] = v
		}
		evs = append(evs, e)
	}
	return evs
}

// events returns the worker's events of kind ("" for all).
func (p *proc) events(kind string) []event {
	var out []event
	for _, e := range readEvents(p.spec.Events) {
		if kind == "" || e.kind == kind {
			out = append(out, e)
		}
	}
	return out
}

// unexercised is what a fleet run panics with when the machine's load kept it from setting
// up its case (a worker too slow to log an event in time); testFleet recovers it.
type unexercised string

// waitEvent waits until the worker has logged n events of kind, and returns the nth. A
// worker that exits first fails the test; one that is only slow panics with unexercised.
func (p *proc) waitEvent(t *testing.T, kind string, n int, timeout time.Duration) event {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		if evs := p.events(kind); len(evs) >= n {
			return evs[n-1]
		}
		select {
		case <-p.exited:
			t.Fatalf("%s exited (%v) before its %s event #%d; stderr:\n%s\nevents:\n%v", p.name, p.err, kind, n, p.stderr.String(), p.events(""))
		default:
		}
		if time.Now().After(deadline) {
			panic(unexercised(fmt.Sprintf("%s: no %s event #%d within %v; events: %v", p.name, kind, n, timeout, p.events(""))))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// issued is an ID a worker wrote, with the wall-clock times taken just before it asked
// and just after it got the ID.
type issued struct {
	id       snowflake.ID
	stamp    time.Time
	returned time.Time
}

func (p *proc) ids(t *testing.T) []issued {
	t.Helper()
	f, err := os.Open(p.spec.IDs)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []issued
	s := bufio.NewScanner(f)
	for s.Scan() {
		f := strings.Fields(s.Text())
		if len(f) != 3 {
			// A worker killed mid-write leaves a torn last line.
			continue
		}
		id, err1 := strconv.ParseInt(f[0], 10, 64)
		stamp, err2 := strconv.ParseInt(f[1], 10, 64)
		got, err3 := strconv.ParseInt(f[2], 10, 64)
		if err1 != nil || err2 != nil || err3 != nil {
			continue
		}
		out = append(out, issued{snowflake.ID(id), time.Unix(0, stamp), time.Unix(0, got)})
	}
	return out
}

func sleepUntil(t time.Time) { time.Sleep(time.Until(t)) }

// TestProcesses is the proof that leases keep IDs unique across processes: eight worker
// processes lease from one store and issue IDs for several seconds while one is killed
// and restarted, one is stopped for longer than its TTL and continued, and one starts
// with its clock behind the time the previous holder of its ID recorded.
func TestProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes for about ten seconds per store")
	}
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			tg := k.setup(t)
			// Every run asserts the invariants. One case needs a setting a loaded machine
			// can upset (another process's lease lapsing changes which ID the clock-behind
			// process takes): a run that did not exercise it is run again, up to 3 times.
			for run := 1; ; run++ {
				why := testFleet(t, tg, fmt.Sprintf("fleet%d", run))
				if why == "" || t.Failed() {
					return
				}
				if run == 3 {
					t.Errorf("after %d runs, %s", run, why)
					return
				}
				t.Logf("run %d: %s; running again", run, why)
			}
		})
	}
}

// testFleet runs the fleet once in namespace ns, failing t where an invariant broke, and
// returns why the clock-behind case was not exercised ("" when it was).
func testFleet(t *testing.T, tg target, ns string) (notExercised string) {
	var all []*proc
	defer func() {
		for _, p := range all {
			p.stop()
		}
		if r := recover(); r != nil {
			u, ok := r.(unexercised)
			if !ok {
				panic(r)
			}
			notExercised = string(u)
		}
	}()
	const (
		ttl       = time.Second
		maxWorker = 15
		// Far enough behind that a late start under load (up to ~3.5 s) still finds its
		// clock behind the previous holder's time.
		behind = 4 * time.Second
	)
	layout := snowflake.Classic()
	dir := t.TempDir()
	spawn := func(name string, offset time.Duration) *proc {
		p := start(t, "fleet", name, childSpec{Target: tg, NS: ns, TTL: ttl, Max: maxWorker, Behind: offset,
			Events: filepath.Join(dir, name+".events"), IDs: filepath.Join(dir, name+".ids")})
		p.run(t)
		all = append(all, p)
		return p
	}

	var fleet []*proc
	for i := range 8 {
		fleet = append(fleet, spawn(fmt.Sprintf("p%d", i), 0))
	}
	held := map[int64]string{}
	for _, p := range fleet {
		w := p.waitEvent(t, "acquired", 1, 20*time.Second).int("worker")
		if other, dup := held[w]; dup {
			// Legal only if other's lease lapsed first (a starved renewal); the handover
			// checks below hold the second holder to the first one's ticks.
			t.Logf("%s and %s both acquired worker %d first", other, p.name, w)
		}
		held[w] = p.name
	}
	t0 := time.Now()
	killed, paused := fleet[1], fleet[2]
	// The ID a process holds: the one it acquired last (a process whose lease lapsed under
	// load has acquired more than once).
	workerOf := func(p *proc) int64 { evs := p.events("acquired"); return evs[len(evs)-1].int("worker") }

	// SIGKILL: no release; the ID comes free when its lease expires, and the restarted
	// process (the lowest free ID being that one) takes it over.
	sleepUntil(t0.Add(time.Second))
	killAt := killed.signal(t, syscall.SIGKILL)
	sleepUntil(killAt.Add(ttl + ttl/2))
	restarted := spawn("p1-restarted", 0)
	rw := restarted.waitEvent(t, "acquired", 1, 10*time.Second).int("worker")
	if rw < 0 || rw > maxWorker {
		t.Errorf("restarted process took worker %d, outside [0, %d]", rw, maxWorker)
	}
	if rw != workerOf(killed) {
		// Another process lost its lease (a renewal starved past the TTL on a loaded
		// machine) and took the freed ID first: legal, and the handover checks below still
		// hold every holder of every ID to its predecessor's ticks.
		t.Logf("restarted process took worker %d; the killed process's %d went to another process first", rw, workerOf(killed))
	}

	// SIGSTOP just after a renewal (so the process holds no lock in the store), for 2.3 TTLs.
	sleepUntil(t0.Add(3 * time.Second))
	n := len(paused.events("renewed"))
	old := paused.waitEvent(t, "renewed", n+1, 2*time.Second).int("worker")
	stopAt := paused.signal(t, syscall.SIGSTOP)

	// While it is stopped its lease expires; a process whose clock is 4 s behind takes the
	// ID over and must wait until its clock passes the previous holder's time.
	sleepUntil(stopAt.Add(ttl + ttl/2))
	late := spawn("behind", behind)
	lateAcq := late.waitEvent(t, "acquired", 1, 10*time.Second)
	if lateAcq.int("worker") != old {
		// As above: another process that lost its lease may have taken it first. The
		// clock-behind checks below still require its clock to read behind the time its
		// worker's previous holder recorded.
		t.Logf("the clock-behind process took worker %d; the paused process's %d went to another process first", lateAcq.int("worker"), old)
	}

	sleepUntil(stopAt.Add(ttl*2 + ttl*3/10))
	acquiredBefore := len(paused.events("acquired"))
	contAt := paused.signal(t, syscall.SIGCONT)
	reacq := paused.waitEvent(t, "acquired", acquiredBefore+1, 10*time.Second)

	// Let the late process issue for a second, then stop everyone gracefully.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if fi, err := os.Stat(late.spec.IDs); err == nil && fi.Size() > 0 {
			break
		}
		if time.Now().After(deadline) {
			panic(unexercised(fmt.Sprintf("the clock-behind process issued nothing within 10 s; events: %v", late.events(""))))
		}
	}
	sleepUntil(time.Now().Add(time.Second))
	sleepUntil(t0.Add(8500 * time.Millisecond))
	for _, p := range all {
		if p != killed {
			p.signal(t, syscall.SIGTERM)
		}
	}
	for _, p := range all {
		select {
		case <-p.exited:
		case <-time.After(15 * time.Second):
			t.Fatalf("%s did not exit", p.name)
		}
		if p != killed && p.err != nil {
			t.Errorf("%s: %v; stderr:\n%s", p.name, p.err, p.stderr.String())
		}
		for _, e := range p.events("error") {
			t.Errorf("%s logged an error: %s", p.name, e.f["err"])
		}
	}
	t.Logf("run: %v; kill at +%v, stop at +%v, continue at +%v", time.Since(t0).Round(time.Millisecond),
		killAt.Sub(t0).Round(time.Millisecond), stopAt.Sub(t0).Round(time.Millisecond), contAt.Sub(t0).Round(time.Millisecond))

	idsOf := checkIDs(t, all, maxWorker)

	// The paused process: it stamped no ID under its old worker ID at or after its
	// deadline (judged from its last successful renewal), said so with a typed error on
	// resuming, and issued again only under the ID it then acquired. What keeps IDs
	// unique is the stamp, not when an ID is returned: resumed, the process may return a
	// few IDs stamped from the tick it had cached before the stop (returnedLate), all
	// before the deadline, where the next holder of its ID never stamps.
	var deadline time.Time
	for _, e := range paused.events("") {
		if (e.kind == "acquired" || e.kind == "renewed") && e.int("worker") == old && e.at().Before(contAt) {
			if d := time.Unix(0, e.int("deadline")); d.After(deadline) {
				deadline = d
			}
		}
	}
	reacqAt, neww := reacq.at(), reacq.int("worker")
	if !deadline.Before(contAt) {
		t.Errorf("paused process: its deadline %v is not before it was continued (+%v): the pause proved nothing", deadline.Sub(t0), contAt.Sub(t0))
	}
	// Whether another process took its ID while it was stopped (the clock-behind process,
	// unless a lease that lapsed under load freed a lower ID first): then it must move to
	// another ID and hear that its lease was taken; otherwise that its lease expired, and
	// it may claim the same ID again.
	var takenBy string
	givenUp := false // the taker lost or released the ID again before the paused one reclaimed
	for _, p := range all {
		for _, e := range p.events("acquired") {
			if p != paused && e.int("worker") == old && e.at().After(stopAt) && e.at().Before(reacqAt) {
				takenBy, givenUp = p.name, false
				for _, g := range p.events("") {
					if (g.kind == "lost" || g.kind == "released") && g.int("worker") == old && g.at().After(e.at()) && g.at().Before(reacqAt) {
						givenUp = true
					}
				}
			}
		}
	}
	wantLost := "expired"
	if takenBy != "" {
		wantLost = "held by another holder"
		// On SQLite a process stopped while it holds the write lock stalls everyone's
		// renewals, so the taker's lease may lapse in turn; the ID is then free again.
		if neww == old && !givenUp {
			t.Errorf("paused process reacquired worker %d, which %s took while it was stopped", neww, takenBy)
		}
	}
	if neww < 0 || neww > maxWorker {
		t.Errorf("paused process reacquired worker %d, outside [0, %d]", neww, maxWorker)
	}
	var sawNotHeld, sawLost bool
	for _, e := range paused.events("notheld") {
		sawNotHeld = sawNotHeld || !e.at().Before(contAt)
	}
	for _, e := range paused.events("lost") {
		sawLost = sawLost || !e.at().Before(contAt) && strings.Contains(e.f["err"], wantLost)
	}
	// A resumed process need not see a not-held error: its first IDs carry stamps from
	// before its deadline (the stale cached tick), and once its renewal hears the loss its
	// Next waits for the new claim. What it must do is hear the loss.
	t.Logf("paused process after SIGCONT: notheld logged %v", sawNotHeld)
	if !sawLost {
		t.Errorf("paused process after SIGCONT: lost (%s) logged %v; events: %v", wantLost, sawLost, paused.events(""))
	}
	oldAfter, otherAfter, returnedLate := 0, 0, 0
	var lastOld time.Time
	for _, x := range idsOf[paused] {
		parts, _ := layout.Decode(x.id)
		made, _ := layout.Time(x.id)
		// Reclaiming its own ID, the process issues under it again, stamped from the
		// claim on (to the millisecond the layout keeps).
		newTerm := neww == old && !made.Before(reacqAt.Add(-time.Millisecond))
		switch {
		case parts.Worker == old && !newTerm:
			if !made.Before(deadline) {
				oldAfter++
			}
			if made.After(lastOld) {
				lastOld = made
			}
			if x.returned.After(deadline) {
				returnedLate++
			}
		case parts.Worker != neww && !made.Before(deadline) && made.Before(reacqAt):
			otherAfter++
		}
	}
	if oldAfter > 0 || otherAfter > 0 {
		t.Errorf("paused process: %d IDs of worker %d stamped at or after its deadline, %d IDs of other workers than its new one stamped between the deadline and reacquiring", oldAfter, old, otherAfter)
	}
	// The next holder of the paused process's ID stamps after the deadline plus the drift
	// and skew (both 0 here): it starts after the lease's end, and the deadline is the
	// margin before it.
	for _, p := range all {
		if p == paused {
			continue
		}
		for _, x := range idsOf[p] {
			parts, _ := layout.Decode(x.id)
			if made, _ := layout.Time(x.id); parts.Worker == old && x.stamp.After(stopAt) && !made.After(deadline) {
				t.Errorf("%s: ID %d of worker %d, asked for after the stop, stamped %v, not after the paused holder's deadline %v", p.name, x.id, old, made, deadline)
				break
			}
		}
	}
	t.Logf("paused process: worker %d, deadline +%v, stopped +%v to +%v, reacquired worker %d at +%v; its last ID of worker %d stamped +%v, %d returned after the deadline (stamped before it)",
		old, deadline.Sub(t0).Round(time.Millisecond), stopAt.Sub(t0).Round(time.Millisecond), contAt.Sub(t0).Round(time.Millisecond), neww, reacqAt.Sub(t0).Round(time.Millisecond),
		old, lastOld.Sub(t0).Round(time.Millisecond), returnedLate)

	// The clock-behind process: its first ID is after the time it had to start after, and
	// when its clock read behind that time (the case this process is for), it waited.
	after, clock := time.Unix(0, lateAcq.int("after")), time.Unix(0, lateAcq.int("clock"))
	lateIDs := idsOf[late]
	if len(lateIDs) == 0 {
		t.Fatal("clock-behind process issued nothing")
	}
	first := slices.MinFunc(lateIDs, func(a, b issued) int { return int(a.id - b.id) })
	if parts, _ := layout.Decode(first.id); parts.Tick <= layout.Tick(after) {
		t.Errorf("clock-behind process: first ID in tick %d, not after tick %d of its start time", parts.Tick, layout.Tick(after))
	}
	if !clock.Before(after) {
		return fmt.Sprintf("the clock-behind process's clock %v was not behind its worker's start time %v (its worker %d was freed early)",
			clock.Round(time.Millisecond), after.Round(time.Millisecond), lateAcq.int("worker"))
	}
	made, _ := layout.Time(first.id)
	firstAt := late.waitEvent(t, "first", 1, 0).at()
	if waited, behindBy := firstAt.Sub(lateAcq.at()), after.Sub(clock); waited < behindBy-50*time.Millisecond {
		t.Errorf("clock-behind process: first ID %v after acquiring, though its clock was %v behind", waited, behindBy)
	}
	t.Logf("clock-behind process: clock %v behind its start time on acquiring; first ID returned %v later, stamped (by its clock) %v after the start time",
		after.Sub(clock).Round(time.Millisecond), firstAt.Sub(lateAcq.at()).Round(time.Millisecond), made.Sub(after).Round(time.Millisecond))
	return ""
}

// checkIDs reads every ID the processes wrote and checks that none repeats, that every
// worker ID acquired is in [0, maxWorker], that each process issued only under worker IDs
// it acquired, and that successive holders of one worker ID issued in disjoint, increasing
// ticks. It returns each process's IDs.
func checkIDs(t *testing.T, all []*proc, maxWorker int64) map[*proc][]issued {
	t.Helper()
	layout := snowflake.Classic()
	// Every ID once; every worker ID in range; each process's IDs of the IDs it acquired.
	type segment struct {
		proc     string
		acquired time.Time
		min, max int64 // ticks
		n        int
	}
	segs := map[int64][]*segment{} // by worker
	var every []snowflake.ID
	idsOf := map[*proc][]issued{}
	for _, p := range all {
		ids := p.ids(t)
		idsOf[p] = ids
		mine := map[int64]*segment{}
		for _, a := range p.events("acquired") {
			w := a.int("worker")
			if w < 0 || w > maxWorker {
				t.Errorf("%s acquired worker %d, outside [0, %d]", p.name, w, maxWorker)
			}
			if mine[w] == nil {
				mine[w] = &segment{proc: p.name, acquired: a.at(), min: 1 << 62, max: -1}
				segs[w] = append(segs[w], mine[w])
			}
		}
		for _, x := range ids {
			parts, _ := layout.Decode(x.id)
			s := mine[parts.Worker]
			if s == nil {
				t.Fatalf("%s issued %d of worker %d, which it never acquired", p.name, x.id, parts.Worker)
			}
			s.min, s.max, s.n = min(s.min, parts.Tick), max(s.max, parts.Tick), s.n+1
			every = append(every, x.id)
		}
		t.Logf("%-13s %7d IDs, workers %v", p.name, len(ids), slices.Sorted(func(yield func(int64) bool) {
			for w := range mine {
				if !yield(w) {
					return
				}
			}
		}))
	}
	slices.Sort(every)
	dups := 0
	for i := 1; i < len(every); i++ {
		if every[i] == every[i-1] {
			dups++
		}
	}
	if dups > 0 {
		t.Errorf("%d duplicate IDs among %d", dups, len(every))
	}
	t.Logf("%d IDs from %d processes, %d duplicates", len(every), len(all), dups)

	// Successive holders of one worker ID issue in disjoint, increasing ticks.
	for w, ss := range segs {
		slices.SortFunc(ss, func(a, b *segment) int { return a.acquired.Compare(b.acquired) })
		var prev *segment
		for _, s := range ss {
			if s.n == 0 {
				continue
			}
			if prev != nil && s.min <= prev.max {
				t.Errorf("worker %d: %s issued from tick %d, not after %s's last tick %d", w, s.proc, s.min, prev.proc, prev.max)
			}
			prev = s
		}
		if len(ss) > 1 {
			var who []string
			for _, s := range ss {
				who = append(who, fmt.Sprintf("%s (%d IDs, ticks %d..%d)", s.proc, s.n, s.min, s.max))
			}
			t.Logf("worker %d held by %s", w, strings.Join(who, " then "))
		}
	}
	return idsOf
}

// BenchmarkFleet measures IDs per second from 1 and 8 processes leasing from one store,
// each issuing its share of b.N IDs from one goroutine.
func BenchmarkFleet(b *testing.B) {
	for _, k := range kinds {
		b.Run(k.name, func(b *testing.B) {
			tg := k.setup(b)
			for _, procs := range []int{1, 8} {
				b.Run(fmt.Sprintf("procs=%d", procs), func(b *testing.B) { benchFleet(b, tg, procs) })
			}
		})
	}
}

func benchFleet(b *testing.B, tg target, procs int) {
	per := (b.N + procs - 1) / procs
	type child struct {
		cmd *exec.Cmd
		in  io.WriteCloser
		out *bufio.Reader
	}
	var cs []child
	for range procs {
		js, _ := json.Marshal(childSpec{Target: tg, NS: "bench", TTL: 10 * time.Second, Max: 1023, N: per})
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), childEnv+"=bench", specEnv+"="+string(js))
		cmd.Stderr = os.Stderr
		in, _ := cmd.StdinPipe()
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		cs = append(cs, child{cmd, in, bufio.NewReader(out)})
	}
	for _, c := range cs {
		if line, err := c.out.ReadString('\n'); line != "ready\n" {
			b.Fatalf("worker said %q, %v", line, err)
		}
	}
	b.ResetTimer()
	start := time.Now()
	for _, c := range cs {
		io.WriteString(c.in, "go\n")
	}
	for _, c := range cs {
		if line, err := c.out.ReadString('\n'); !strings.HasPrefix(line, "done ") {
			b.Fatalf("worker said %q, %v", line, err)
		}
	}
	elapsed := time.Since(start)
	b.StopTimer()
	for _, c := range cs {
		c.in.Close()
		if err := c.cmd.Wait(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(per*procs)/elapsed.Seconds(), "IDs/s")
}
