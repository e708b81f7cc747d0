package main

import (
	"bytes"
	"strings"
	"testing"
)

// A stream of go test -json for two packages: server-backed subtests that ran and that
// skipped, a failed test, a package that failed.
const stream = `{"ImportPath":"example.com/d","Action":"build-output","Output":"# example.com/d\n"}
{"ImportPath":"example.com/d","Action":"build-output","Output":"d.go:2:1: undefined: x\n"}
{"ImportPath":"example.com/d","Action":"build-fail"}
{"Action":"start","Package":"example.com/d"}
{"Action":"output","Package":"example.com/d","Output":"FAIL\texample.com/d [build failed]\n"}
{"Action":"fail","Package":"example.com/d"}
{"Action":"start","Package":"example.com/a"}
{"Action":"run","Package":"example.com/a","Test":"TestX"}
{"Action":"output","Package":"example.com/a","Test":"TestX","Output":"=== RUN   TestX\n"}
{"Action":"run","Package":"example.com/a","Test":"TestX/postgres"}
{"Action":"output","Package":"example.com/a","Test":"TestX/postgres","Output":"    testdb.go:101: testdb: server used: PostgreSQL\n"}
{"Action":"output","Package":"example.com/a","Test":"TestX/postgres","Output":"    shared.go:63: redistest: server used: Redis\n"}
{"Action":"output","Package":"example.com/a","Test":"TestX/postgres","Output":"    testdb.go:101: testdb: server used: PostgreSQL\n"}
{"Action":"pass","Package":"example.com/a","Test":"TestX/postgres"}
{"Action":"run","Package":"example.com/a","Test":"TestX/mysql"}
{"Action":"output","Package":"example.com/a","Test":"TestX/mysql","Output":"    setup_test.go:97: set IDGEN_TEST_MYSQL_DSN to run against mysql\n"}
{"Action":"output","Package":"example.com/a","Test":"TestX/mysql","Output":"--- SKIP: TestX/mysql (0.00s)\n"}
{"Action":"skip","Package":"example.com/a","Test":"TestX/mysql"}
{"Action":"pass","Package":"example.com/a","Test":"TestX"}
{"Action":"output","Package":"example.com/a","Output":"PASS\n"}
{"Action":"output","Package":"example.com/a","Output":"ok  \texample.com/a\t0.1s\n"}
{"Action":"pass","Package":"example.com/a"}
{"Action":"skip","Package":"example.com/e"}
{"Action":"run","Package":"example.com/b","Test":"TestY"}
{"Action":"output","Package":"example.com/b","Test":"TestY","Output":"    y_test.go:3: boom\n"}
{"Action":"output","Package":"example.com/b","Test":"TestY","Output":"--- FAIL: TestY (0.00s)\n"}
{"Action":"fail","Package":"example.com/b","Test":"TestY"}
{"Action":"run","Package":"example.com/b","Test":"TestZ"}
{"Action":"output","Package":"example.com/b","Test":"TestZ","Output":"    z_test.go:9: set IDGEN_TEST_MYSQL_DSN to run against mysql\n"}
{"Action":"skip","Package":"example.com/b","Test":"TestZ"}
{"Action":"output","Package":"example.com/b","Output":"FAIL\texample.com/b\t0.2s\n"}
{"Action":"fail","Package":"example.com/b"}
`

func TestSummarize(t *testing.T) {
	var out bytes.Buffer
	s, err := summarize(strings.NewReader("# example.com/c\nc.go:1: syntax error\n"+stream), &out)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		got, want int
	}{
		{"ran", s.ran, 3}, {"passed", s.passed, 2}, {"failed", s.failed, 1}, {"skipped", s.skipped, 2},
		{"server skips", s.serverSkips, 2}, {"PostgreSQL", s.servers["PostgreSQL"], 1}, {"Redis", s.servers["Redis"], 1},
		{"skips for mysql", s.skips["set IDGEN_TEST_MYSQL_DSN to run against mysql\n"], 2},
		{"failed packages", len(s.failedPkgs), 2},
	} {
		if tc.got != tc.want {
			t.Errorf("%s = %d, want %d", tc.name, tc.got, tc.want)
		}
	}
	// What go test prints without -json: the build errors, ok and FAIL lines, and the
	// failed test's output; not the passing tests' logs or "PASS".
	want := "# example.com/c\nc.go:1: syntax error\n# example.com/d\nd.go:2:1: undefined: x\nFAIL\texample.com/d [build failed]\nok  \texample.com/a\t0.1s\n    y_test.go:3: boom\n--- FAIL: TestY (0.00s)\nFAIL\texample.com/b\t0.2s\n"
	if out.String() != want {
		t.Errorf("passed through:\n%s\nwant:\n%s", out.String(), want)
	}
	var sum bytes.Buffer
	s.print(&sum)
	for _, line := range []string{
		"tests and subtests: 3 ran (2 passed, 1 failed), 2 skipped",
		"      1  PostgreSQL",
		"      2  set IDGEN_TEST_MYSQL_DSN to run against mysql",
		"failed packages: example.com/d example.com/b",
	} {
		if !strings.Contains(sum.String(), line) {
			t.Errorf("summary lacks %q:\n%s", line, sum.String())
		}
	}
}
