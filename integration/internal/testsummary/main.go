// Command testsummary reads the output of go test -json and prints what go test prints
// without -json (the ok and FAIL lines, and the output of failed tests), then a summary: how
// many tests and subtests ran, passed, failed and were skipped, how many of them used each
// server (integration/internal/testdb and plugins/redis/redistest log their UsedMarker),
// and why the skipped ones were skipped. A plain go test prints "ok" for a package whose
// server-backed tests all skipped; this says so.
//
//	go test -json ./... | go run ./integration/internal/testsummary
//
// It exits 1 when a test or package failed, and with -require-servers also when a test was
// skipped for want of a server (a message naming an IDGEN_TEST_ variable), as CI requires.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"regexp"
	"sort"
	"strings"

	"github.com/idgen/idgen/integration/internal/testdb"
	"github.com/idgen/idgen/plugins/redis/redistest"
)

// event is one line of go test -json (cmd/test2json).
type event struct {
	Action     string
	Package    string
	ImportPath string // of build-output and build-fail events
	Test       string
	Output     string
}

// summary is what a run adds up to.
type summary struct {
	ran, passed, failed, skipped int
	failedPkgs                   []string
	servers                      map[string]int // tests that used each server
	skips                        map[string]int // skipped tests per reason
	serverSkips                  int            // skipped for want of a server
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("testsummary: ")
	requireServers := flag.Bool("require-servers", false, "exit 1 if a test skipped for want of a server (CI)")
	flag.Parse()
	s, err := summarize(os.Stdin, os.Stdout)
	if err != nil {
		log.Fatal(err)
	}
	s.print(os.Stdout)
	switch {
	case s.failed > 0 || len(s.failedPkgs) > 0:
		os.Exit(1)
	case *requireServers && s.serverSkips > 0:
		fmt.Fprintf(os.Stdout, "FAIL: %d tests skipped for want of a server (-require-servers)\n", s.serverSkips)
		os.Exit(1)
	}
}

// usedMarkers start the lines the test helpers log when they give a test a server, the
// server's name following.
var usedMarkers = []string{testdb.UsedMarker, redistest.UsedMarker}

// fileLine is the "file.go:12: " a t.Log or t.Skip line starts with.
var fileLine = regexp.MustCompile(`^\s*[\w./-]+\.go:\d+: `)

// summarize reads a go test -json stream, writing to w what go test would print without
// -json, and adds it up.
func summarize(r io.Reader, w io.Writer) (*summary, error) {
	s := &summary{servers: map[string]int{}, skips: map[string]int{}}
	type key struct{ pkg, test string }
	output := map[key][]string{} // each running test's output, until it ends
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if err := json.Unmarshal(line, &e); err != nil || e.Action == "" {
			// Not an event (a build error printed before the stream): pass it on.
			fmt.Fprintf(w, "%s\n", line)
			continue
		}
		k := key{e.Package, e.Test}
		switch {
		case e.Action == "build-output":
			fmt.Fprint(w, e.Output)
		case e.Action == "build-fail":
			// The package's own fail event follows: it is counted there.
		case e.Test == "" && e.Action == "output":
			// Package-level lines: ok, FAIL, build errors; "PASS" is -v's.
			if o := e.Output; o != "PASS\n" && !strings.HasPrefix(o, "=== ") && !strings.HasPrefix(o, "--- ") {
				fmt.Fprint(w, o)
			}
		case e.Test == "" && e.Action == "fail":
			s.failedPkgs = append(s.failedPkgs, e.Package)
		case e.Action == "output":
			output[k] = append(output[k], e.Output)
		case e.Test != "" && (e.Action == "pass" || e.Action == "fail" || e.Action == "skip"):
			out := output[k]
			delete(output, k)
			used := map[string]bool{} // a test may use several servers, each once
			for _, o := range out {
				for _, marker := range usedMarkers {
					if m := strings.Index(o, marker); m >= 0 {
						used[strings.TrimSpace(o[m+len(marker):])] = true
					}
				}
			}
			for server := range used {
				s.servers[server]++
			}
			switch e.Action {
			case "pass":
				s.ran++
				s.passed++
			case "fail":
				s.ran++
				s.failed++
				fmt.Fprint(w, strings.Join(out, ""))
			case "skip":
				s.skipped++
				reason := skipReason(out)
				s.skips[reason]++
				if strings.Contains(reason, "IDGEN_TEST_") {
					s.serverSkips++
				}
			}
		}
	}
	return s, sc.Err()
}

// skipReason is the message of a skipped test: its last logged line that is not go
// test's own, without the file:line.
func skipReason(out []string) string {
	for i := len(out) - 1; i >= 0; i-- {
		o := strings.TrimSpace(out[i])
		if o == "" || strings.HasPrefix(o, "=== ") || strings.HasPrefix(o, "--- ") {
			continue
		}
		return fileLine.ReplaceAllString(out[i], "")
	}
	return "(no reason given)"
}

func (s *summary) print(w io.Writer) {
	fmt.Fprintf(w, "\ntests and subtests: %d ran (%d passed, %d failed), %d skipped\n", s.ran, s.passed, s.failed, s.skipped)
	if len(s.servers) == 0 {
		fmt.Fprintln(w, "tests that ran on a server (from testdb and redistest): none")
	} else {
		fmt.Fprintln(w, "tests that ran on a server (from testdb and redistest), by server:")
		for _, name := range sortedKeys(s.servers) {
			fmt.Fprintf(w, "  %5d  %s\n", s.servers[name], name)
		}
	}
	if len(s.skips) > 0 {
		fmt.Fprintln(w, "skipped, by reason:")
		reasons := sortedKeys(s.skips)
		sort.SliceStable(reasons, func(i, j int) bool { return s.skips[reasons[i]] > s.skips[reasons[j]] })
		for _, r := range reasons {
			fmt.Fprintf(w, "  %5d  %s\n", s.skips[r], strings.TrimSpace(r))
		}
	}
	if len(s.failedPkgs) > 0 {
		fmt.Fprintf(w, "failed packages: %s\n", strings.Join(s.failedPkgs, " "))
	}
}

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
