// Sustain runs every generator of package bench flat out for a window of time, from 1, 2, 8
// and 64 goroutines, and prints a markdown table of IDs per second, CPU cores used and the
// share of IDs the least served goroutine got. It then measures idgen's uncapped paths and
// allocations against bwmarrin/snowflake in the same process, and prints each target as a
// PASS or FAIL line. It exits with status 1 if a target fails, after printing everything.
//
// Usage:
//
//	sustain [-window 1s] [-goroutines 1,2,8,64] [-peers name,...] [-benchtime 1s]
package main

import (
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/idgen/idgen/bench"
)

// Targets.
const (
	// capFraction of the layout's cap is the least idgen-capped must sustain.
	capFraction = 0.99
	// maxCappedCores is the most CPU idgen-capped may use: waiting callers sleep.
	maxCappedCores = 1.1
	// minCappedShare is the least share of IDs any goroutine of idgen-capped may get.
	minCappedShare = 0.25
	// maxRatio is the most ns per ID idgen's uncapped paths may take, as a fraction of
	// bwmarrin-step22's.
	maxRatio = 0.5
	// compareGoroutines is how many goroutines the parallel comparison runs.
	compareGoroutines = 64
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("sustain: ")
	window := flag.Duration("window", time.Second, "how long each generator runs per goroutine count")
	counts := flag.String("goroutines", "1,2,8,64", "comma-separated goroutine counts")
	benchtime := flag.String("benchtime", "1s", "run time (or Nx) of each comparison benchmark")
	peers := flag.String("peers", "", "comma-separated generators of the windows (default all)")
	flag.Parse()
	if flag.NArg() > 0 {
		log.Fatalf("unexpected arguments %q", flag.Args())
	}
	ns, err := parseCounts(*counts)
	if err != nil {
		log.Fatal(err)
	}
	testing.Init()
	if err := flag.Set("test.benchtime", *benchtime); err != nil {
		log.Fatalf("-benchtime: %v", err)
	}

	var only []string
	if *peers != "" {
		only = strings.Split(*peers, ",")
		for _, name := range only {
			if !slices.ContainsFunc(bench.Peers(), func(p bench.Peer) bool { return p.Name == name }) {
				log.Fatalf("-peers: no generator %q", name)
			}
		}
	}

	var c checks
	sustained(&c, *window, ns, only)
	compared(&c)
	allocs(&c)

	fmt.Println()
	for _, line := range c.lines {
		fmt.Println(line)
	}
	if c.failed {
		os.Exit(1)
	}
}

func parseCounts(s string) ([]int, error) {
	var ns []int
	for f := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("-goroutines: %q is not a positive count", f)
		}
		ns = append(ns, n)
	}
	return ns, nil
}

// checks collects the PASS and FAIL lines, printed after the tables.
type checks struct {
	lines  []string
	failed bool
}

func (c *checks) add(ok bool, format string, args ...any) {
	verdict := "PASS"
	if !ok {
		verdict, c.failed = "FAIL", true
	}
	c.lines = append(c.lines, verdict+" "+fmt.Sprintf(format, args...))
}

// sustained prints the table of windows, for the peers named in only (all when empty),
// and checks the targets of idgen-capped.
func sustained(c *checks, window time.Duration, counts []int, only []string) {
	fmt.Printf("Sustained windows of %v, GOMAXPROCS %d\n\n", window, runtime.GOMAXPROCS(0))
	fmt.Println("| generator | goroutines | IDs/s | cores | min share | errors |")
	fmt.Println("|---|--:|--:|--:|--:|--:|")
	var (
		failures []string
		capped   = map[int]bench.Result{}
		idgenErr int64
	)
	for _, p := range bench.Peers() {
		if len(only) > 0 && !slices.Contains(only, p.Name) {
			continue
		}
		for _, n := range counts {
			next, err := p.New()
			if err != nil {
				log.Fatalf("%s: %v", p.Name, err)
			}
			r := bench.Window(n, window, func(int) error { return next() })
			cores := "n/a"
			if r.Cores() >= 0 {
				cores = fmt.Sprintf("%.2f", r.Cores())
			}
			fmt.Printf("| %s | %d | %s | %s | %.2f | %d |\n", p.Name, n, thousands(r.Rate()), cores, r.MinShare(), r.Errors)
			if r.Errors > 0 {
				failures = append(failures, fmt.Sprintf("%s, %d goroutines: %d errors, one: %v", p.Name, n, r.Errors, r.Err))
			}
			if strings.HasPrefix(p.Name, "idgen") {
				idgenErr += r.Errors
			}
			if p.Name == "idgen-capped" {
				capped[n] = r
			}
		}
	}
	fmt.Println()
	for _, f := range failures {
		fmt.Println("error:", f)
	}
	if len(failures) > 0 {
		fmt.Println()
	}

	c.add(idgenErr == 0, "idgen Next never failed in the windows: %d errors", idgenErr)
	if len(capped) == 0 {
		return
	}
	g, err := bench.IdgenCapped()
	if err != nil {
		log.Fatal(err)
	}
	idCap := g.Layout().IDsPerSecond()
	for _, n := range counts {
		r := capped[n]
		c.add(r.Rate() >= capFraction*idCap, "idgen-capped %d goroutines: IDs/s %s >= %.2f x %s",
			n, thousands(r.Rate()), capFraction, thousands(idCap))
		c.add(r.Cores() <= maxCappedCores, "idgen-capped %d goroutines: cores %.2f <= %.1f", n, r.Cores(), maxCappedCores)
		c.add(r.MinShare() >= minCappedShare, "idgen-capped %d goroutines: min share %.2f >= %.2f", n, r.MinShare(), minCappedShare)
	}
}

// measure runs the benchmark called name, serial when par is 0 and from RunParallel with
// par goroutines per GOMAXPROCS otherwise, and returns its ns per ID and allocs per op.
func measure(name string, par int) (nsPerID float64, allocs int64) {
	bm, ok := bench.LookupBenchmark(name)
	if !ok {
		log.Fatalf("no benchmark %q", name)
	}
	failed := false
	r := testing.Benchmark(func(b *testing.B) {
		// testing.Benchmark discards the failure; the deferred check runs after b.Fatal too.
		defer func() { failed = failed || b.Failed() }()
		if par > 0 {
			bm.Parallel(b, par)
		} else {
			bm.Serial(b)
		}
	})
	if failed || r.N == 0 {
		log.Fatalf("benchmark %s failed (go test -run '^$' -bench Next/%s shows why)", name, name)
	}
	return float64(r.T.Nanoseconds()) / float64(r.N) / float64(bm.IDsPerOp), r.AllocsPerOp()
}

// compared measures idgen's uncapped paths against bwmarrin-step22, serial and from
// compareGoroutines goroutines, in this process, one after the other.
func compared(c *checks) {
	procs := runtime.GOMAXPROCS(0)
	par := (compareGoroutines + procs - 1) / procs
	modes := []struct {
		name string
		par  int
	}{
		{"serial", 0},
		{fmt.Sprintf("%d goroutines", par*procs), par},
	}
	fmt.Printf("Uncapped paths, testing.Benchmark in this process\n\n")
	fmt.Println("| benchmark | mode | ns/ID | allocs/op |")
	fmt.Println("|---|---|--:|--:|")
	for _, m := range modes {
		base, baseAllocs := measure("bwmarrin-step22", m.par)
		fmt.Printf("| bwmarrin-step22 Generate | %s | %.2f | %d |\n", m.name, base, baseAllocs)
		for _, name := range []string{"idgen-borrow", "idgen-borrow-nextn1000"} {
			v, a := measure(name, m.par)
			fmt.Printf("| %s | %s | %.2f | %d |\n", name, m.name, v, a)
			c.add(v <= maxRatio*base, "%s %s ns/ID <= %.1f x bwmarrin-step22: %.2f vs %.2f (%.2fx)",
				name, m.name, maxRatio, v, base, v/base)
		}
	}
	fmt.Println()
}

// allocs checks that idgen's Next and AppendText do not allocate.
func allocs(c *checks) {
	g, err := bench.IdgenBorrow()
	if err != nil {
		log.Fatal(err)
	}
	var nextErr error
	next := testing.AllocsPerRun(10000, func() {
		if _, err := g.Next(); err != nil {
			nextErr = err
		}
	})
	if nextErr != nil {
		log.Fatalf("idgen-borrow Next: %v", nextErr)
	}
	c.add(next == 0, "idgen Next allocs/op == 0: %v", next)

	id, err := g.Next()
	if err != nil {
		log.Fatal(err)
	}
	buf := make([]byte, 0, 32)
	text := testing.AllocsPerRun(10000, func() { buf, _ = id.AppendText(buf[:0]) })
	c.add(text == 0, "idgen AppendText allocs/op == 0: %v", text)
}

// thousands formats v, rounded to an integer, with commas between groups of three digits.
func thousands(v float64) string {
	if !(v >= 0 && v < math.MaxInt64) {
		return fmt.Sprintf("%.0f", v) // negative, infinite or NaN: not a count
	}
	s := strconv.FormatInt(int64(math.Round(v)), 10)
	var b strings.Builder
	for i, d := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(d)
	}
	return b.String()
}
