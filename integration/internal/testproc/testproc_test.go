package testproc

import (
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"
)

const childEnv = "IDGEN_TESTPROC_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "" {
		os.Exit(m.Run())
	}
	// A child: the time it passed the barrier.
	if err := Ready(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(time.Now().UnixNano())
	os.Exit(0)
}

// TestGroup: every child gets ready, none passes the barrier before Release, all do after.
func TestGroup(t *testing.T) {
	const n = 4
	g := Start(t, n, func(int) []string { return []string{childEnv + "=1"} })
	g.WaitReady()
	before := time.Now().UnixNano()
	g.Release()
	for i := range n {
		line := g.Line(i)
		at, err := strconv.ParseInt(line, 10, 64)
		if err != nil {
			t.Fatalf("child %d: %q: %v", i, line, err)
		}
		// A child reads its clock after the barrier, which opens after the parent's read.
		if at < before {
			t.Errorf("child %d passed the barrier %v before the release", i, time.Duration(before-at))
		}
	}
	for _, err := range g.Wait() {
		if err != nil {
			t.Error(err)
		}
	}
}
