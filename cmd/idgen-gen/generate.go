package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/tools/go/packages"
)

// file is one generated file: where it goes and what it holds. A nil content means the
// file must be removed (its package no longer has annotated types).
type file struct {
	path    string
	content []byte
}

// options are what the command line asks of the output.
type options struct {
	// gorm adds GormDBDataType methods, which import gorm.io/gorm, so that AutoMigrate
	// makes a native uuid column on PostgreSQL.
	gorm bool
}

// generate is the pure part of the tool: loaded packages in, files out. A package with an
// annotation error gets no file; its errors are returned, all of them.
func generate(pkgs []*packages.Package, opts options) ([]file, error) {
	var files []file
	var errs []error
	for _, p := range pkgs {
		m, err := model(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if m.dir == "" {
			continue
		}
		path := filepath.Join(m.dir, outputName(m.name))
		if len(m.types) == 0 {
			files = append(files, file{path: path})
			continue
		}
		m.gorm = opts.gorm
		src, err := render(m)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		files = append(files, file{path: path, content: src})
	}
	return files, errors.Join(errs...)
}

// outputName is the generated file's name for a package.
func outputName(pkg string) string { return strings.ToLower(pkg) + "_idgen.go" }

// write writes files, only where the content changed, and removes stale generated files
// (never a file this tool did not write).
func write(files []file) error {
	for _, f := range files {
		old, err := os.ReadFile(f.path)
		exists := err == nil
		if f.content == nil {
			if exists && isGenerated(old) {
				if err := os.Remove(f.path); err != nil {
					return err
				}
			}
			continue
		}
		if exists && !isGenerated(old) {
			return fmt.Errorf("%s exists and was not written by idgen-gen: not overwriting it", f.path)
		}
		if exists && string(old) == string(f.content) {
			continue
		}
		if err := os.WriteFile(f.path, f.content, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func isGenerated(src []byte) bool {
	return strings.HasPrefix(string(src), "// "+header+"\n")
}
