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
				t, err := buildType(a, ts.Name.Name, obj, firstTypeError(p))
				if err != nil {
					errs = append(errs, err)
					continue
				}
				m.types = append(m.types, t)
			}
		}
		// An annotation anywhere else is a mistake worth stopping for, and so is a comment
		// that looks like one but would be ignored.
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				if strings.HasPrefix(c.Text, annotationPrefix) {
					if !used[c.Slash] {
						errs = append(errs, errorAt(p.Fset.Position(c.Slash), "idgen: annotation %q is not in the doc comment of a type declaration", strings.Fields(c.Text)[0]))
					}
					continue
				}
				if want, ok := nearMiss(c.Text); ok {
					errs = append(errs, errorAt(p.Fset.Position(c.Slash), "idgen: %q is not an annotation and would be ignored: write %s (no space after //, lowercase idgen, a colon before the kind)", firstLine(c.Text), want))
				}
			}
		}
	}
	errs = append(errs, sharedPrefixes(m.types)...)
	return m, errors.Join(errs...)
}

// nearMiss reports whether a comment is a misspelt annotation, such as "// idgen:snowflake",
// "//IDGEN:uuid7", "//idgen snowflake" or "/*idgen:number*/", which the go tool and this
// one would otherwise skip without a word. It returns the spelling wanted. Prose that
// mentions idgen is not a near miss: the word after idgen must be a kind, followed by
// nothing or by KEY=VALUE options ("// idgen: number of retries" is prose).
func nearMiss(text string) (string, bool) {
	body, ok := strings.CutPrefix(text, "//")
	if !ok {
		body = strings.TrimSuffix(strings.TrimPrefix(text, "/*"), "*/")
	}
	body = strings.TrimLeft(body, " \t")
	if len(body) < len("idgen") || !strings.EqualFold(body[:len("idgen")], "idgen") {
		return "", false
	}
	rest := body[len("idgen"):]
	if rest == "" || rest[0] != ':' && !isSpace(rest[0]) {
		return "", false
	}
	rest = strings.TrimLeft(strings.TrimPrefix(strings.TrimLeft(rest, " \t"), ":"), " \t")
	word, args, _ := strings.Cut(rest, " ")
	kind := strings.ToLower(word)
	if _, ok := kinds[kind]; !ok {
		return "", false
	}
	args = strings.TrimSpace(args)
	if fields := strings.Fields(args); len(fields) > 0 && !strings.Contains(fields[0], "=") {
		return "", false
	}
	want := annotationPrefix + kind
	if args != "" {
		want += " " + args
	}
	return want, true
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// sharedPrefixes refuses two types of one package with one prefix: a prefix is what lets
// ParseX refuse another type's text, which it cannot do for a type that shares it.
func sharedPrefixes(types []*idType) []error {
	var errs []error
	first := map[string]*idType{}
	for _, t := range types {
		if t.prefix == "" {
			continue
		}
		if o, ok := first[t.prefix]; ok {
			pos := t.pos
			if p, ok := t.optPos["prefix"]; ok {
				pos = p
			}
			errs = append(errs, errorAt(pos, "idgen:%s: %s has prefix %q, as %s has (line %d): give each type of a package its own prefix, so that one's text is refused where the other belongs", t.kind, t.name, t.prefix, o.name, o.pos.Line))
			continue
		}
		first[t.prefix] = t
	}
	return errs
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

// firstTypeError is the first error that kept the package from type-checking, if any.
func firstTypeError(p *packages.Package) string {
	for _, e := range p.Errors {
		if e.Kind == packages.TypeError {
			return e.Error()
		}
	}
	return ""
}

func dirOf(file string) string {
	if i := strings.LastIndexAny(file, `/\`); i >= 0 {
		return file[:i]
	}
	return "."
}
