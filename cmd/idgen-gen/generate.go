package main

import (
	"errors"
	"fmt"
	"go/token"
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
	var models []*pkgModel
	for _, p := range pkgs {
		m, err := model(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if m.dir == "" {
			continue
		}
		models = append(models, m)
	}
	refused := map[*pkgModel]bool{}
	for _, c := range prefixClashes(models) {
		errs = append(errs, c.err)
		refused[c.a], refused[c.b] = true, true
	}
	for _, m := range models {
		if refused[m] {
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

// clash is a prefix two packages of one run give their types.
type clash struct {
	a, b *pkgModel
	err  error
}

// prefixClashes refuses a prefix shared by types of two packages generated in one run: in
// a program that links both, the text of one would be the other's, and idgen.Resolve
// could tell neither (idgen.CheckPrefixes reports what separate runs let through). Types
// of one package are checked by sharedPrefixes.
func prefixClashes(models []*pkgModel) []clash {
	type owner struct {
		m *pkgModel
		t *idType
	}
	first := map[string]owner{}
	var out []clash
	for _, m := range models {
		for _, t := range m.types {
			if t.prefix == "" {
				continue
			}
			o, ok := first[t.prefix]
			if !ok {
				first[t.prefix] = owner{m, t}
				continue
			}
			if o.m == m {
				continue // sharedPrefixes reports it
			}
			out = append(out, clash{o.m, m, errorAt(prefixPos(t), "idgen:%s: %s.%s has prefix %q, as %s.%s has (%s): give each type of a program its own prefix, so that idgen.Resolve can tell their text apart", t.kind, m.path, t.name, t.prefix, o.m.path, o.t.name, prefixPos(o.t))})
		}
	}
	return out
}

// prefixPos is where a type's prefix option was given.
func prefixPos(t *idType) token.Position {
	if p, ok := t.optPos["prefix"]; ok {
		return p
	}
	return t.pos
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
