package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idgen/idgen"
)

func TestDecode(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"decode", "253888551064702976"}, []string{"time      2026-12-02 14:22:27.595 UTC", "worker    1", "sequence  0"}},
		{[]string{"decode", "253888551064702976", "-layout", "classicdc"}, []string{"worker    1 (datacenter 0, machine 1)"}},
		{[]string{"decode", "-layout", "sonyflake", "1234567"}, []string{"layout    sonyflake", "worker    54919", "sequence  18"}},
		{[]string{"decode", "usr_0e1kz8d3t2c00"}, []string{"id        "}},
		{[]string{"decode", "-layout", "leaf", "2129365199877066759"}, []string{"time      2026-12-06 00:00:00.000 UTC", "worker    5", "sequence  7"}},
		{[]string{"decode", "-layout", "epoch=1288834974657,unit=1ms,bits=41/10/12", "2129365199877066759"}, []string{"time      2026-12-06 00:00:00.000 UTC", "worker    5"}},
		{[]string{"decode", "-layout", "twitter", "2129365199877066759"}, []string{"worker    5 (datacenter 0, machine 5)"}},
		{[]string{"decode", "-layout", "uid-generator", "1083568709173592071"}, []string{"time      2017-05-19 16:00:00.000 UTC", "worker    42", "sequence  7"}},
	} {
		var out, errOut bytes.Buffer
		if err := run(&out, &errOut, tc.args); err != nil {
			t.Fatalf("%v: %v\n%s", tc.args, err, errOut.String())
		}
		for _, w := range tc.want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("%v: output lacks %q:\n%s", tc.args, w, out.String())
			}
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"decode", "-1"}, "flag provided but not defined"},
		{[]string{"decode", "abc"}, `codec: parse ID "abc"`},
		{[]string{"decode", "9223372036854775808"}, "overflows int64"},
		{[]string{"decode", "1", "-layout", "twitterish"}, `unknown layout "twitterish"`},
		{[]string{"decode"}, "usage: idgen-gen decode"},
		{[]string{"decode", "1", "2"}, "usage: idgen-gen decode"},
	} {
		var out, errOut bytes.Buffer
		err := run(&out, &errOut, tc.args)
		if err == nil {
			t.Errorf("%v: no error", tc.args)
			continue
		}
		if !strings.Contains(err.Error()+errOut.String(), tc.want) {
			t.Errorf("%v: %v\n%s\nwant %q", tc.args, err, errOut.String(), tc.want)
		}
	}
}

func TestUsage(t *testing.T) {
	var out, errOut bytes.Buffer
	if err := run(&out, &errOut, []string{"-h"}); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"usage: idgen-gen", "//idgen:snowflake prefix=usr", "-tags", "decode"} {
		if !strings.Contains(errOut.String(), w) {
			t.Errorf("usage lacks %q:\n%s", w, errOut.String())
		}
	}
}

// TestDryRun: -n prints the files it would write and writes nothing.
func TestDryRun(t *testing.T) {
	root := moduleRoot(t)
	wd, _ := os.Getwd()
	t.Cleanup(func() { os.Chdir(wd) })
	if err := os.Chdir(filepath.Join(root, "golden", "prefixed")); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if err := run(&out, &errOut, []string{"-n"}); err != nil {
		t.Fatal(err, errOut.String())
	}
	want, _ := os.ReadFile("prefixed_idgen.go")
	if !strings.Contains(out.String(), string(want)) {
		t.Error("-n did not print the generated file")
	}
	// Errors come out relative to the working directory.
	if err := os.Chdir(filepath.Join(root, "golden", "errors")); err != nil {
		t.Fatal(err)
	}
	err := run(&out, &errOut, []string{"./twice"})
	if err == nil || !strings.HasPrefix(err.Error(), "twice/input.go:4:1: ") {
		t.Errorf("error %v, want it relative to the working directory", err)
	}
}

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	gen := filepath.Join(dir, "x_idgen.go")
	content := []byte("// " + header + "\n\npackage x\n")
	if err := write([]file{{path: gen, content: content}}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(gen); !bytes.Equal(got, content) {
		t.Fatal("not written")
	}
	// No annotated types left: the stale file goes.
	if err := write([]file{{path: gen}}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(gen); !os.IsNotExist(err) {
		t.Fatal("stale generated file kept")
	}
	// A hand-written file of that name is never overwritten or removed.
	hand := []byte("package x\n")
	os.WriteFile(gen, hand, 0o644)
	if err := write([]file{{path: gen, content: content}}); err == nil || !strings.Contains(err.Error(), "not written by idgen-gen") {
		t.Fatalf("overwrote a hand-written file: %v", err)
	}
	if err := write([]file{{path: gen}}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(gen); !bytes.Equal(got, hand) {
		t.Fatal("hand-written file changed")
	}
}

// TestRefusedExit: the checks that guard against silent mistakes (a misspelt annotation,
// zone=Local, a shared prefix) make run fail, so main exits non-zero, with the position in
// the message, and nothing is written.
func TestRefusedExit(t *testing.T) {
	for _, tc := range []struct{ dir, want string }{
		{"nearmiss", "nearmiss/input.go:3:1: idgen: \"// idgen:snowflake prefix=usr\" is not an annotation"},
		{"localzone", "localzone/input.go:3:27: idgen:number: zone=Local"},
		{"sharedprefix", "sharedprefix/input.go:8:16: idgen:typeid: UserTID has prefix \"usr\""},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			dir := filepath.Join("..", "..", "golden", "errors", tc.dir)
			var stdout, stderr bytes.Buffer
			err := run(&stdout, &stderr, []string{dir})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("run = %v, want an error containing %q", err, tc.want)
			}
			if _, err := os.Stat(filepath.Join(dir, tc.dir+"_idgen.go")); !os.IsNotExist(err) {
				t.Errorf("a generated file exists for a refused package: %v", err)
			}
		})
	}
}

// TestVersion: -version prints the release the generator belongs to (idgen.Version,
// which .ci/release sets), so a user can tell which generator wrote their files.
func TestVersion(t *testing.T) {
	var out, errOut bytes.Buffer
	if err := run(&out, &errOut, []string{"-version"}); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "idgen-gen "+idgen.Version+"\n"; got != want {
		t.Errorf("-version printed %q, want %q", got, want)
	}
}
