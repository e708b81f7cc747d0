//go:build unix

package leasetest

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

// Proc is a worker process started by a test: Start makes it, Run starts it.
type Proc struct {
	Name   string        // the test's name for it, in messages
	Spec   Spec          // what it was told to do
	Cmd    *exec.Cmd     // the test binary, run as the worker
	Exited chan struct{} // closed when it has exited
	Err    error         // from Wait, once Exited is closed
	// Stderr is what it wrote on standard error; read it once Exited is closed.
	Stderr bytes.Buffer
}

// Start prepares the test binary as a worker process in mode ("fleet", "bench" or
// "first"; see the package doc) with spec, named name in messages; Run starts it.
func Start(t *testing.T, mode, name string, spec Spec) *Proc {
	t.Helper()
	js, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	p := &Proc{Name: name, Spec: spec, Exited: make(chan struct{})}
	p.Cmd = exec.Command(os.Args[0], "-test.run=^$")
	p.Cmd.Env = append(os.Environ(), childEnv+"="+mode, specEnv+"="+string(js))
	p.Cmd.Stderr = &p.Stderr
	return p
}

// Run starts the worker, and stops it when t ends.
func (p *Proc) Run(t *testing.T) {
	t.Helper()
	if err := p.Cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.Err = p.Cmd.Wait()
		close(p.Exited)
	}()
	t.Cleanup(p.Stop)
}

// Stop kills the worker unless it has exited, and waits for it.
func (p *Proc) Stop() {
	select {
	case <-p.Exited:
	default:
		p.Cmd.Process.Signal(syscall.SIGCONT)
		p.Cmd.Process.Kill()
		<-p.Exited
	}
}

// Signal sends sig and returns the time just before it was sent.
func (p *Proc) Signal(t *testing.T, sig syscall.Signal) time.Time {
	t.Helper()
	at := time.Now()
	if err := p.Cmd.Process.Signal(sig); err != nil {
		t.Fatalf("%s: %v: %v", p.Name, sig, err)
	}
	return at
}

// Event is a line of a worker's event log (the package doc lists them).
type Event struct {
	Kind string            // "acquired", "renewed", "lost", ...
	F    map[string]string // the fields, by key; err unquoted
}

// Int returns field k as an integer, 0 if missing.
func (e Event) Int(k string) int64 {
	v, _ := strconv.ParseInt(e.F[k], 10, 64)
	return v
}

// At returns the time the worker logged e at.
func (e Event) At() time.Time { return time.Unix(0, e.Int("at")) }

func readEvents(path string) []Event {
	data, _ := os.ReadFile(path)
	var evs []Event
	for line := range strings.Lines(string(data)) {
		line = strings.TrimSuffix(line, "\n")
		kind, rest, _ := strings.Cut(line, " ")
		e := Event{Kind: kind, F: map[string]string{}}
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
			e.F[k] = v
		}
		evs = append(evs, e)
	}
	return evs
}

// Events returns the worker's events of kind ("" for all).
func (p *Proc) Events(kind string) []Event {
	var out []Event
	for _, e := range readEvents(p.Spec.Events) {
		if kind == "" || e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}

// Unexercised is what a fleet run panics with when the machine's load kept it from setting
// up its case (a worker too slow to log an event in time); Processes recovers it and runs
// the fleet again. A test of one's own may recover it the same way.
type Unexercised string

// WaitEvent waits until the worker has logged n events of kind, and returns the nth. A
// worker that exits first fails the test; one that is only slow panics with Unexercised.
func (p *Proc) WaitEvent(t *testing.T, kind string, n int, timeout time.Duration) Event {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		if evs := p.Events(kind); len(evs) >= n {
			return evs[n-1]
		}
		select {
		case <-p.Exited:
			t.Fatalf("%s exited (%v) before its %s event #%d; stderr:\n%s\nevents:\n%v", p.Name, p.Err, kind, n, p.Stderr.String(), p.Events(""))
		default:
		}
		if time.Now().After(deadline) {
			panic(Unexercised(fmt.Sprintf("%s: no %s event #%d within %v; events: %v", p.Name, kind, n, timeout, p.Events(""))))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Issued is an ID a worker wrote, with the wall-clock times taken just before it asked
// and just after it got the ID.
type Issued struct {
	ID       snowflake.ID
	Stamp    time.Time // just before the worker asked for ID
	Returned time.Time // just after it got ID
}

// IDs returns the IDs the worker wrote, without a line torn by a kill.
func (p *Proc) IDs(t *testing.T) []Issued {
	t.Helper()
	f, err := os.Open(p.Spec.IDs)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []Issued
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
		out = append(out, Issued{snowflake.ID(id), time.Unix(0, stamp), time.Unix(0, got)})
	}
	return out
}

// SleepUntil sleeps until t: the fleet tests pace their steps by the wall clock, as the
// workers' leases run on it.
func SleepUntil(t time.Time) { time.Sleep(time.Until(t)) }

// Processes is the body of a test package's TestProcesses, one subtest per Kind: the
// proof that leases keep IDs unique across processes. Eight worker processes lease from
// one store and issue IDs for several seconds while one is killed and restarted, one is
// stopped for longer than its TTL and continued, and one starts with its clock behind the
// time the previous holder of its ID recorded; the package doc says what is checked.
// The test package's TestMain must be Main.
func Processes(t *testing.T, kinds []Kind) {
	if testing.Short() {
		t.Skip("starts worker processes for about ten seconds per store")
	}
	for _, k := range kinds {
		t.Run(k.Name, func(t *testing.T) {
			tg := k.Setup(t)
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
func testFleet(t *testing.T, tg Target, ns string) (notExercised string) {
	var all []*Proc
	defer func() {
		for _, p := range all {
			p.Stop()
		}
		if r := recover(); r != nil {
			u, ok := r.(Unexercised)
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
	spawn := func(name string, offset time.Duration) *Proc {
		p := Start(t, "fleet", name, Spec{Target: tg, NS: ns, TTL: ttl, Max: maxWorker, Behind: offset,
			Events: filepath.Join(dir, name+".events"), IDs: filepath.Join(dir, name+".ids")})
		p.Run(t)
		all = append(all, p)
		return p
	}

	var fleet []*Proc
	for i := range 8 {
		fleet = append(fleet, spawn(fmt.Sprintf("p%d", i), 0))
	}
	held := map[int64]string{}
	for _, p := range fleet {
		w := p.WaitEvent(t, "acquired", 1, 20*time.Second).Int("worker")
		if other, dup := held[w]; dup {
			// Legal only if other's lease lapsed first (a starved renewal); the handover
			// checks below hold the second holder to the first one's ticks.
			t.Logf("%s and %s both acquired worker %d first", other, p.Name, w)
		}
		held[w] = p.Name
	}
	t0 := time.Now()
	killed, paused := fleet[1], fleet[2]
	// The ID a process holds: the one it acquired last (a process whose lease lapsed under
	// load has acquired more than once).
	workerOf := func(p *Proc) int64 { evs := p.Events("acquired"); return evs[len(evs)-1].Int("worker") }

	// SIGKILL: no release; the ID comes free when its lease expires, and the restarted
	// process (the lowest free ID being that one) takes it over.
	SleepUntil(t0.Add(time.Second))
	killAt := killed.Signal(t, syscall.SIGKILL)
	SleepUntil(killAt.Add(ttl + ttl/2))
	restarted := spawn("p1-restarted", 0)
	rw := restarted.WaitEvent(t, "acquired", 1, 10*time.Second).Int("worker")
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
	SleepUntil(t0.Add(3 * time.Second))
	n := len(paused.Events("renewed"))
	old := paused.WaitEvent(t, "renewed", n+1, 2*time.Second).Int("worker")
	stopAt := paused.Signal(t, syscall.SIGSTOP)

	// While it is stopped its lease expires; a process whose clock is 4 s behind takes the
	// ID over and must wait until its clock passes the previous holder's time.
	SleepUntil(stopAt.Add(ttl + ttl/2))
	late := spawn("behind", behind)
	lateAcq := late.WaitEvent(t, "acquired", 1, 10*time.Second)
	if lateAcq.Int("worker") != old {
		// As above: another process that lost its lease may have taken it first. The
		// clock-behind checks below still require its clock to read behind the time its
		// worker's previous holder recorded.
		t.Logf("the clock-behind process took worker %d; the paused process's %d went to another process first", lateAcq.Int("worker"), old)
	}

	SleepUntil(stopAt.Add(ttl*2 + ttl*3/10))
	acquiredBefore := len(paused.Events("acquired"))
	contAt := paused.Signal(t, syscall.SIGCONT)
	reacq := paused.WaitEvent(t, "acquired", acquiredBefore+1, 10*time.Second)

	// Let the late process issue for a second, then stop everyone gracefully.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if fi, err := os.Stat(late.Spec.IDs); err == nil && fi.Size() > 0 {
			break
		}
		if time.Now().After(deadline) {
			panic(Unexercised(fmt.Sprintf("the clock-behind process issued nothing within 10 s; events: %v", late.Events(""))))
		}
	}
	SleepUntil(time.Now().Add(time.Second))
	SleepUntil(t0.Add(8500 * time.Millisecond))
	for _, p := range all {
		if p != killed {
			p.Signal(t, syscall.SIGTERM)
		}
	}
	for _, p := range all {
		select {
		case <-p.Exited:
		case <-time.After(15 * time.Second):
			t.Fatalf("%s did not exit", p.Name)
		}
		if p != killed && p.Err != nil {
			t.Errorf("%s: %v; stderr:\n%s", p.Name, p.Err, p.Stderr.String())
		}
		for _, e := range p.Events("error") {
			t.Errorf("%s logged an error: %s", p.Name, e.F["err"])
		}
	}
	t.Logf("run: %v; kill at +%v, stop at +%v, continue at +%v", time.Since(t0).Round(time.Millisecond),
		killAt.Sub(t0).Round(time.Millisecond), stopAt.Sub(t0).Round(time.Millisecond), contAt.Sub(t0).Round(time.Millisecond))

	idsOf := CheckIDs(t, all, maxWorker)

	// The paused process: it stamped no ID under its old worker ID at or after its
	// deadline (judged from its last successful renewal), said so with a typed error on
	// resuming, and issued again only under the ID it then acquired. What keeps IDs
	// unique is the stamp, not when an ID is returned: resumed, the process may return a
	// few IDs stamped from the tick it had cached before the stop (returnedLate), all
	// before the deadline, where the next holder of its ID never stamps.
	var deadline time.Time
	for _, e := range paused.Events("") {
		if (e.Kind == "acquired" || e.Kind == "renewed") && e.Int("worker") == old && e.At().Before(contAt) {
			if d := time.Unix(0, e.Int("deadline")); d.After(deadline) {
				deadline = d
			}
		}
	}
	reacqAt, neww := reacq.At(), reacq.Int("worker")
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
		for _, e := range p.Events("acquired") {
			if p != paused && e.Int("worker") == old && e.At().After(stopAt) && e.At().Before(reacqAt) {
				takenBy, givenUp = p.Name, false
				for _, g := range p.Events("") {
					if (g.Kind == "lost" || g.Kind == "released") && g.Int("worker") == old && g.At().After(e.At()) && g.At().Before(reacqAt) {
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
	for _, e := range paused.Events("notheld") {
		sawNotHeld = sawNotHeld || !e.At().Before(contAt)
	}
	for _, e := range paused.Events("lost") {
		sawLost = sawLost || !e.At().Before(contAt) && strings.Contains(e.F["err"], wantLost)
	}
	// A resumed process need not see a not-held error: its first IDs carry stamps from
	// before its deadline (the stale cached tick), and once its renewal hears the loss its
	// Next waits for the new claim. What it must do is hear the loss.
	t.Logf("paused process after SIGCONT: notheld logged %v", sawNotHeld)
	if !sawLost {
		t.Errorf("paused process after SIGCONT: lost (%s) logged %v; events: %v", wantLost, sawLost, paused.Events(""))
	}
	oldAfter, otherAfter, returnedLate := 0, 0, 0
	var lastOld time.Time
	for _, x := range idsOf[paused] {
		parts, _ := layout.Decode(x.ID)
		made, _ := layout.Time(x.ID)
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
			if x.Returned.After(deadline) {
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
			parts, _ := layout.Decode(x.ID)
			if made, _ := layout.Time(x.ID); parts.Worker == old && x.Stamp.After(stopAt) && !made.After(deadline) {
				t.Errorf("%s: ID %d of worker %d, asked for after the stop, stamped %v, not after the paused holder's deadline %v", p.Name, x.ID, old, made, deadline)
				break
			}
		}
	}
	t.Logf("paused process: worker %d, deadline +%v, stopped +%v to +%v, reacquired worker %d at +%v; its last ID of worker %d stamped +%v, %d returned after the deadline (stamped before it)",
		old, deadline.Sub(t0).Round(time.Millisecond), stopAt.Sub(t0).Round(time.Millisecond), contAt.Sub(t0).Round(time.Millisecond), neww, reacqAt.Sub(t0).Round(time.Millisecond),
		old, lastOld.Sub(t0).Round(time.Millisecond), returnedLate)

	// The clock-behind process: its first ID is after the time it had to start after, and
	// when its clock read behind that time (the case this process is for), it waited.
	after, clock := time.Unix(0, lateAcq.Int("after")), time.Unix(0, lateAcq.Int("clock"))
	lateIDs := idsOf[late]
	if len(lateIDs) == 0 {
		t.Fatal("clock-behind process issued nothing")
	}
	first := slices.MinFunc(lateIDs, func(a, b Issued) int { return int(a.ID - b.ID) })
	if parts, _ := layout.Decode(first.ID); parts.Tick <= layout.Tick(after) {
		t.Errorf("clock-behind process: first ID in tick %d, not after tick %d of its start time", parts.Tick, layout.Tick(after))
	}
	if !clock.Before(after) {
		return fmt.Sprintf("the clock-behind process's clock %v was not behind its worker's start time %v (its worker %d was freed early)",
			clock.Round(time.Millisecond), after.Round(time.Millisecond), lateAcq.Int("worker"))
	}
	made, _ := layout.Time(first.ID)
	firstAt := late.WaitEvent(t, "first", 1, 0).At()
	if waited, behindBy := firstAt.Sub(lateAcq.At()), after.Sub(clock); waited < behindBy-50*time.Millisecond {
		t.Errorf("clock-behind process: first ID %v after acquiring, though its clock was %v behind", waited, behindBy)
	}
	t.Logf("clock-behind process: clock %v behind its start time on acquiring; first ID returned %v later, stamped (by its clock) %v after the start time",
		after.Sub(clock).Round(time.Millisecond), firstAt.Sub(lateAcq.At()).Round(time.Millisecond), made.Sub(after).Round(time.Millisecond))
	return ""
}

// CheckIDs reads the IDs of all (workers in mode "fleet", exited), checks that none
// repeats, that each is of a worker ID its process acquired in [0, maxWorker], and that
// each holder of a worker ID stamped only after the previous holder's last tick; it
// returns the IDs by process. The IDs are read in the classic layout the workers use.
func CheckIDs(t *testing.T, all []*Proc, maxWorker int64) map[*Proc][]Issued {
	t.Helper()
	layout := snowflake.Classic()
	// Every ID once; every worker ID in range; each process's IDs of the IDs it acquired.
	type segment struct {
		Proc     string
		acquired time.Time
		min, max int64 // ticks
		n        int
	}
	segs := map[int64][]*segment{} // by worker
	var every []snowflake.ID
	idsOf := map[*Proc][]Issued{}
	for _, p := range all {
		ids := p.IDs(t)
		idsOf[p] = ids
		mine := map[int64]*segment{}
		for _, a := range p.Events("acquired") {
			w := a.Int("worker")
			if w < 0 || w > maxWorker {
				t.Errorf("%s acquired worker %d, outside [0, %d]", p.Name, w, maxWorker)
			}
			if mine[w] == nil {
				mine[w] = &segment{Proc: p.Name, acquired: a.At(), min: 1 << 62, max: -1}
				segs[w] = append(segs[w], mine[w])
			}
		}
		for _, x := range ids {
			parts, _ := layout.Decode(x.ID)
			s := mine[parts.Worker]
			if s == nil {
				t.Fatalf("%s issued %d of worker %d, which it never acquired", p.Name, x.ID, parts.Worker)
			}
			s.min, s.max, s.n = min(s.min, parts.Tick), max(s.max, parts.Tick), s.n+1
			every = append(every, x.ID)
		}
		t.Logf("%-13s %7d IDs, workers %v", p.Name, len(ids), slices.Sorted(func(yield func(int64) bool) {
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
				t.Errorf("worker %d: %s issued from tick %d, not after %s's last tick %d", w, s.Proc, s.min, prev.Proc, prev.max)
			}
			prev = s
		}
		if len(ss) > 1 {
			var who []string
			for _, s := range ss {
				who = append(who, fmt.Sprintf("%s (%d IDs, ticks %d..%d)", s.Proc, s.n, s.min, s.max))
			}
			t.Logf("worker %d held by %s", w, strings.Join(who, " then "))
		}
	}
	return idsOf
}

// Bench is the body of a test package's BenchmarkFleet, one sub-benchmark per Kind: it
// measures IDs per second (the IDs/s metric) from 1 and 8 worker processes leasing from
// one store, each issuing its share of b.N IDs from one goroutine once all have claimed a
// worker ID. The test package's TestMain must be Main.
func Bench(b *testing.B, kinds []Kind) {
	for _, k := range kinds {
		b.Run(k.Name, func(b *testing.B) {
			tg := k.Setup(b)
			for _, procs := range []int{1, 8} {
				b.Run(fmt.Sprintf("procs=%d", procs), func(b *testing.B) { benchFleet(b, tg, procs) })
			}
		})
	}
}

func benchFleet(b *testing.B, tg Target, procs int) {
	per := (b.N + procs - 1) / procs
	type child struct {
		Cmd *exec.Cmd
		in  io.WriteCloser
		out *bufio.Reader
	}
	var cs []child
	for range procs {
		js, _ := json.Marshal(Spec{Target: tg, NS: "bench", TTL: 10 * time.Second, Max: 1023, N: per})
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
		if err := c.Cmd.Wait(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(per*procs)/elapsed.Seconds(), "IDs/s")
}
