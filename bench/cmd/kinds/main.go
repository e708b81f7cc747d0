// Kinds measures New, String, MarshalJSON and Parse of each kind of ID type cmd/idgen-gen
// writes, and of google/uuid and go.jetify.com/typeid, with testing.Benchmark in one
// process, and prints them as a markdown table. It then checks the targets of the kinds and
// prints each as a PASS or FAIL line. It exits with status 1 if a target fails, after
// printing everything.
//
// Usage:
//
//	kinds [-benchtime 1s]
package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/idgen/idgen/bench"
	"github.com/idgen/idgen/golden/snowflakeid"
)

// Targets.
const (
	// maxMarshalJSONAllocs is the most allocations snowflakeid.UserID's MarshalJSON may
	// make per call: the buffer it returns.
	maxMarshalJSONAllocs = 1
	// typeidRuns is how many times each side of the TypeID comparison runs, alternating;
	// the best run of each side counts, so a burst of load on a shared machine hurts
	// neither side alone.
	typeidRuns = 2
)

// columns are the operations of the table. The peers have MarshalText in place of
// MarshalJSON: encoding/json calls it and quotes the text.
var columns = []string{"New", "String", "MarshalJSON", "Parse"}

func main() {
	log.SetFlags(0)
	log.SetPrefix("kinds: ")
	benchtime := flag.String("benchtime", "1s", "run time (or Nx) of each benchmark")
	flag.Parse()
	if flag.NArg() > 0 {
		log.Fatalf("unexpected arguments %q", flag.Args())
	}
	testing.Init()
	if err := flag.Set("test.benchtime", *benchtime); err != nil {
		log.Fatalf("-benchtime: %v", err)
	}
	failed, err := run(os.Stdout)
	if err != nil {
		log.Fatal(err)
	}
	if failed {
		os.Exit(1)
	}
}

// run prints the table and the comparison, then the PASS and FAIL lines, and reports
// whether a target failed. An error means a benchmark did not run.
func run(w io.Writer) (failed bool, err error) {
	var c checks
	if err := table(w); err != nil {
		return false, err
	}
	if err := compareTypeID(w, &c); err != nil {
		return false, err
	}
	if err := marshalAllocs(&c); err != nil {
		return false, err
	}
	for _, line := range c.lines {
		fmt.Fprintln(w, line)
	}
	return c.failed, nil
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

// result is one measurement: ns and allocations per call.
type result struct {
	ns     float64
	allocs int64
}

// measure runs the operation op of the kind called kind with testing.Benchmark.
func measure(kind, op string) (result, error) {
	o, ok := bench.LookupKindOp(kind, op)
	if !ok {
		return result{}, fmt.Errorf("no benchmark %s/%s", kind, op)
	}
	failed := false
	r := testing.Benchmark(func(b *testing.B) {
		// testing.Benchmark discards the failure; the deferred check runs after b.Fatal too.
		defer func() { failed = failed || b.Failed() }()
		o.Bench(b)
	})
	if failed || r.N == 0 {
		return result{}, fmt.Errorf("benchmark %s/%s failed (go test -run '^$' -bench 'Kinds/%s/%s' shows why)",
			kind, op, regexp.QuoteMeta(kind), regexp.QuoteMeta(op))
	}
	return result{float64(r.T.Nanoseconds()) / float64(r.N), r.AllocsPerOp()}, nil
}

// table measures every kind's operations and prints them, one row a kind.
func table(w io.Writer) error {
	fmt.Fprintf(w, "Kinds, testing.Benchmark in this process: ns/op (allocs/op); the peers' MarshalJSON is MarshalText\n\n")
	fmt.Fprintf(w, "| kind | type | %s |\n", strings.Join(columns, " | "))
	fmt.Fprintf(w, "|---|---|%s\n", strings.Repeat("--:|", len(columns)))
	for _, k := range bench.Kinds() {
		cells := []string{k.Name, k.Type}
		for _, col := range columns {
			op := col
			if k.Peer && op == "MarshalJSON" {
				op = "MarshalText"
			}
			r, err := measure(k.Name, op)
			if err != nil {
				return err
			}
			cells = append(cells, fmt.Sprintf("%.2f (%d)", r.ns, r.allocs))
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	}
	fmt.Fprintln(w)
	return nil
}

// compareTypeID measures generate+String of idgen's TypeID (typeids.NewUserTID, then
// String) and of jetify's (WithPrefix("user"), then String), alternating, and checks that
// idgen's best run is no slower than jetify's.
func compareTypeID(w io.Writer, c *checks) error {
	sides := []struct{ kind, label string }{
		{"typeid", "idgen typeids.NewUserTID + String"},
		{"jetify-typeid", `jetify WithPrefix("` + bench.TypeIDPrefix + `") + String`},
	}
	best := make([]result, len(sides))
	fmt.Fprintf(w, "TypeID generate+String, testing.Benchmark in this process, %d runs each alternating\n\n", typeidRuns)
	fmt.Fprintln(w, "| benchmark | run | ns/op | allocs/op |")
	fmt.Fprintln(w, "|---|--:|--:|--:|")
	for round := 1; round <= typeidRuns; round++ {
		for i, s := range sides {
			r, err := measure(s.kind, "New+String")
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "| %s | %d | %.2f | %d |\n", s.label, round, r.ns, r.allocs)
			if round == 1 || r.ns < best[i].ns {
				best[i] = r
			}
		}
	}
	fmt.Fprintln(w)
	ours, theirs := best[0].ns, best[1].ns
	c.add(ours <= theirs, "typeid New+String ns/op <= jetify-typeid's, best of %d: %.2f vs %.2f (%.2fx)",
		typeidRuns, ours, theirs, ours/theirs)
	return nil
}

// marshaled keeps what MarshalJSON returns, as encoding/json does: a result that went
// nowhere could stay on the stack, and the check would count fewer allocations than a
// caller gets.
var marshaled []byte

// marshalAllocs checks the allocations of snowflakeid.UserID's MarshalJSON.
func marshalAllocs(c *checks) error {
	id := snowflakeid.UserID(bench.FixedSnowflake)
	allocs := testing.AllocsPerRun(10000, func() { marshaled, _ = id.MarshalJSON() })
	if want := `"` + id.String() + `"`; string(marshaled) != want {
		return fmt.Errorf("snowflakeid.UserID MarshalJSON = %s, want %s", marshaled, want)
	}
	c.add(allocs <= maxMarshalJSONAllocs, "snowflake snowflakeid.UserID MarshalJSON allocs/op <= %d: %v",
		maxMarshalJSONAllocs, allocs)
	return nil
}
