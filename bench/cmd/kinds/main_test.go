package main

import (
	"flag"
	"strings"
	"testing"

	"github.com/idgen/idgen/bench"
)

// TestRun runs the whole harness with one iteration per benchmark: it checks that every
// benchmark runs and every table and target is printed, not the numbers.
func TestRun(t *testing.T) {
	f := flag.Lookup("test.benchtime")
	prev := f.Value.String()
	if err := f.Value.Set("1x"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Value.Set(prev) })

	var out strings.Builder
	if _, err := run(&out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, k := range bench.Kinds() {
		if !strings.Contains(got, "| "+k.Name+" | "+k.Type+" | ") {
			t.Errorf("no row for %s", k.Name)
		}
	}
	for _, target := range []string{
		"typeid New+String ns/op <= jetify-typeid's",
		"snowflake snowflakeid.UserID MarshalJSON allocs/op <= 1",
	} {
		if !strings.Contains(got, "PASS "+target) && !strings.Contains(got, "FAIL "+target) {
			t.Errorf("no PASS or FAIL line for %q", target)
		}
	}
	if t.Failed() {
		t.Logf("output:\n%s", got)
	}
}
