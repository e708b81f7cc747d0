package main

import (
	"go/token"
	"strings"
	"testing"
)

func TestParseAnnotation(t *testing.T) {
	pos := token.Position{Filename: "x.go", Line: 3, Column: 1}
	for _, tc := range []struct {
		in   string
		kind string
		opts string // key=value;... as parsed
		err  string
	}{
		{in: "//idgen:snowflake", kind: "snowflake"},
		{in: "//idgen:snowflake prefix=usr  json=string\t", kind: "snowflake", opts: "prefix=usr;json=string"},
		{in: `//idgen:number prefix="OR D" time="2006010215"`, kind: "number", opts: "prefix=OR D;time=2006010215"},
		{in: `//idgen:number prefix="\u4e2d"`, kind: "number", opts: "prefix=中"},
		{in: "//idgen:", err: "x.go:3:9: idgen: annotation without a kind"},
		{in: "//idgen: prefix=usr", err: "x.go:3:9: idgen: annotation without a kind"},
		{in: "//idgen:snowflake prefix", err: `x.go:3:19: idgen:snowflake: option "prefix" has no value`},
		{in: "//idgen:snowflake =usr", err: "x.go:3:19: idgen:snowflake: '=' without an option name"},
		{in: "//idgen:snowflake prefix=", err: "x.go:3:26: idgen:snowflake: option prefix has an empty value"},
		{in: `//idgen:snowflake prefix="usr`, err: "x.go:3:26: idgen:snowflake: option prefix: unterminated"},
		{in: `//idgen:snowflake prefix="usr"x`, err: "x.go:3:31: idgen:snowflake: option prefix: want a space after the quoted value"},
		{in: "//idgen:snowflake a=1 a=2", err: "x.go:3:23: idgen:snowflake: option a given twice"},
	} {
		a, err := parseAnnotation(tc.in, pos)
		if tc.err != "" {
			if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		var opts []string
		for _, o := range a.options {
			opts = append(opts, o.key+"="+o.value)
		}
		if a.kind != tc.kind || strings.Join(opts, ";") != tc.opts {
			t.Errorf("%s: kind %q options %q", tc.in, a.kind, opts)
		}
	}
}

func TestLowerFirst(t *testing.T) {
	for in, want := range map[string]string{"OrderNo": "orderNo", "URLNo": "urlNo", "ID": "id", "x": "x", "TXNNo": "txnNo"} {
		if got := lowerFirst(in); got != want {
			t.Errorf("lowerFirst(%q) = %q, want %q", in, got, want)
		}
	}
}
