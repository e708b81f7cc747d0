package main

import (
	"io"
	"path/filepath"
	"strings"
	"testing"
)

// TestPrefixAcrossPackages: a prefix given to types of two packages generated in one run is
// refused, with the position of both, and neither package gets a file; a third package
// generated alongside still does.
func TestPrefixAcrossPackages(t *testing.T) {
	dir, err := filepath.Abs("testdata/crossprefix")
	if err != nil {
		t.Fatal(err)
	}
	pkgs, err := load(dir, []string{"./a", "./b", "./c"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	files, err := generate(pkgs, options{})
	if err == nil {
		t.Fatal("no error for prefix usr in packages a and b")
	}
	msg := strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), "")
	want := `b/ids.go:4:16: idgen:typeid: github.com/idgen/idgen/cmd/idgen-gen/testdata/crossprefix/b.AdminID has prefix "usr", as github.com/idgen/idgen/cmd/idgen-gen/testdata/crossprefix/a.UserID has (a/ids.go:4:19): give each type of a program its own prefix, so that idgen.Resolve can tell their text apart`
	if msg != want {
		t.Errorf("error:\n%s\nwant:\n%s", msg, want)
	}
	if len(files) != 1 || filepath.Base(filepath.Dir(files[0].path)) != "c" {
		t.Errorf("files %v, want c's only", files)
	}
	// The command names both positions relative to the current directory.
	err = run(io.Discard, io.Discard, []string{"./testdata/crossprefix/a", "./testdata/crossprefix/b"})
	if err == nil || !strings.HasPrefix(err.Error(), "testdata/crossprefix/b/ids.go:4:16: ") || !strings.Contains(err.Error(), "(testdata/crossprefix/a/ids.go:4:19)") {
		t.Errorf("run: %v", err)
	}
	// Each alone is fine: the clash is across the run.
	for _, p := range []string{"./a", "./b"} {
		pkgs, err := load(dir, []string{p}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := generate(pkgs, options{}); err != nil {
			t.Errorf("%s alone: %v", p, err)
		}
	}
}
