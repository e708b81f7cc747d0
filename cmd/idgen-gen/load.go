package main

import (
	"errors"
	"fmt"
	"go/ast"
	"go/token"
	"strings"

	"golang.org/x/tools/go/packages"
)

// load loads the packages matching patterns with syntax and types.
func load(dir string, patterns []string, tags []string) ([]*packages.Package, error) {
	cfg := &packages.Config{
		Mode:  packages.NeedName | packages.NeedFiles | packages.NeedImports | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo,
		Dir:   dir,
		Tests: false,
	}
	if len(tags) > 0 {
		cfg.BuildFlags = []string{"-tags=" + strings.Join(tags, ",")}
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, err
	}
	if len(pkgs) == 0 {
		return nil, fmt.Errorf("no packages match %s", strings.Join(patterns, " "))
	}
	for _, p := range pkgs {
		// A package that does not parse cannot be generated for. Type errors are fine:
		// code that calls what we are about to generate does not type-check yet.
		for _, e := range p.Errors {
			if e.Kind == packages.ParseError || e.Kind == packages.ListError {
				return nil, fmt.Errorf("%s: %s", p.PkgPath, e.Msg)
			}
		}
	}
	return pkgs, nil
}

// model reads the annotations of one loaded package. It returns every annotation error it
// finds, not only the first.
func model(p *packages.Package) (*pkgModel, error) {
	m := &pkgModel{name: p.Name, path: p.PkgPath}
	if len(p.GoFiles) > 0 {
		m.dir = dirOf(p.GoFiles[0])
	}
	var errs []error
	used := map[token.Pos]bool{}
	for _, f := range p.Syntax {
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, spec := range gd.Specs {
				ts := spec.(*ast.TypeSpec)
				doc := ts.Doc
				if doc == nil && len(gd.Specs) == 1 {
					doc = gd.Doc
				}
				a, err := typeAnnotation(p.Fset, doc, used)
				if err != nil {
					errs = append(errs, err)
					continue
				}
				if a == nil {
					continue
				}
				if ts.Assign.IsValid() {
					errs = append(errs, errorAt(a.pos, "idgen:%s: %s is an alias: annotate a defined type (type %s int64, not type %s = int64)", a.kind, ts.Name.Name, ts.Name.Name, ts.Name.Name))
					continue
				}
				if ts.TypeParams != nil {
					errs = append(errs, errorAt(a.pos, "idgen:%s: %s is generic: annotate a plain defined type", a.kind, ts.Name.Name))
					continue
				}
				obj := p.TypesInfo.Defs[ts.Name]
				if obj == nil {
					errs = append(errs, errorAt(a.pos, "idgen:%s: no type information for %s", a.kind, ts.Name.Name))
					continue
				}
				t, err := buildType(a, ts.Name.Name, obj)
				if err != nil {
					errs = append(errs, err)
					continue
				}
				m.types = append(m.types, t)
			}
		}
		// An annotation anywhere else is a mistake worth stopping for.
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				if strings.HasPrefix(c.Text, annotationPrefix) && !used[c.Slash] {
					errs = append(errs, errorAt(p.Fset.Position(c.Slash), "idgen: annotation %q is not in the doc comment of a type declaration", strings.Fields(c.Text)[0]))
				}
			}
		}
	}
	return m, errors.Join(errs...)
}

// typeAnnotation finds the //idgen: line in a type's doc comment. It reads the raw comment
// list: CommentGroup.Text drops directive-shaped lines.
func typeAnnotation(fset *token.FileSet, doc *ast.CommentGroup, used map[token.Pos]bool) (*annotation, error) {
	if doc == nil {
		return nil, nil
	}
	var found *annotation
	for _, c := range doc.List {
		if !strings.HasPrefix(c.Text, annotationPrefix) {
			continue
		}
		used[c.Slash] = true
		pos := fset.Position(c.Slash)
		a, err := parseAnnotation(c.Text, pos)
		if err != nil {
			return nil, err
		}
		if found != nil {
			return nil, errorAt(pos, "idgen: a second annotation on one type (the first is at line %d)", found.pos.Line)
		}
		found = a
	}
	return found, nil
}

func dirOf(file string) string {
	if i := strings.LastIndexAny(file, `/\`); i >= 0 {
		return file[:i]
	}
	return "."
}
