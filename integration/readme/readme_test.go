package readme

import (
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// pending lists the READMEs whose snippets are not checked yet, and why. Every other
// README.md of the module is checked; TestReadmeSnippets fails on a README it does not know.
var pending = map[string]string{}

// snippet is one ```go block of a README.
type snippet struct {
	readme string
	line   int // of the opening fence
	src    string
	module string // the folder of the go.mod the README belongs to
}

// TestReadmeSnippets type-checks every ```go block of every README.md in the repository
// (bench/ aside) against the packages of the module the README belongs to (the root
// module, or a nested one such as plugins/rabbitmq). A block that starts with a package
// clause is a file; any other block is the body of a file (imports and declarations) and
// gets "package snippet". Blocks that are not Go (shell commands, output, SQL) are fenced
// without the go tag.
func TestReadmeSnippets(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	byModule := map[string][]snippet{}
	var readmes []string
	module := map[string]string{} // folder -> its module's folder
	nested := map[string]string{} // module path -> folder, of the modules below the root
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() && (rel == "bench" || strings.HasPrefix(d.Name(), ".") && rel != ".") {
			return filepath.SkipDir
		}
		if d.IsDir() {
			module[path] = module[filepath.Dir(path)]
			if b, err := os.ReadFile(filepath.Join(path, "go.mod")); err == nil {
				module[path] = path
				if m := moduleLine.FindSubmatch(b); m != nil && path != root {
					nested[string(m[1])] = path
				}
			}
			return nil
		}
		if d.Name() != "README.md" {
			return nil
		}
		if reason, ok := pending[rel]; ok {
			t.Run(rel, func(t *testing.T) { t.Skip(reason) })
			return nil
		}
		readmes = append(readmes, rel)
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, sn := range extract(rel, string(b)) {
			sn.module = module[filepath.Dir(path)]
			byModule[sn.module] = append(byModule[sn.module], sn)
		}
		return nil
	})
	// A snippet that imports a nested module (the root README showing a broker adapter) is
	// checked in that module, which requires everything it imports.
	for mod, sns := range byModule {
		keep := sns[:0]
		for _, sn := range sns {
			if dir := importsNested(sn.src, nested); dir != "" && dir != mod {
				byModule[dir] = append(byModule[dir], sn)
				continue
			}
			keep = append(keep, sn)
		}
		byModule[mod] = keep
	}
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, sns := range byModule {
		n += len(sns)
	}
	if n < 10 {
		t.Fatalf("found %d snippets in %v", n, readmes)
	}
	for _, mod := range slices.Sorted(maps.Keys(byModule)) {
		checkSnippets(t, mod, byModule[mod])
	}
}

// checkSnippets parses snippets, loads every package they import from module in one go
// (so the types they share are the same objects), and type-checks each.
func checkSnippets(t *testing.T, module string, snippets []snippet) {
	fset := token.NewFileSet()
	files := make([]*ast.File, len(snippets))
	imports := map[string]bool{}
	for i, s := range snippets {
		// A line directive makes every position a line of the README.
		src := fmt.Sprintf("//line %s:%d\n%s", s.readme, s.line+1, s.src)
		if !packageClause.MatchString(s.src) {
			src = "package snippet\n" + src
		}
		f, err := parser.ParseFile(fset, "snippet.go", src, parser.ParseComments)
		if err != nil {
			t.Errorf("does not parse as a Go file (or a file without its package clause): %v", err)
			continue
		}
		files[i] = f
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			imports[p] = true
		}
	}
	var paths []string
	for p := range imports {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	pkgs, err := packages.Load(&packages.Config{Mode: packages.NeedName | packages.NeedTypes | packages.NeedImports, Dir: module}, paths...)
	if err != nil {
		t.Fatal(err)
	}
	byPath := map[string]*types.Package{}
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			t.Errorf("loading %s: %v", p.PkgPath, e)
		}
		if p.Types != nil {
			byPath[p.PkgPath] = p.Types
		}
	})
	imp := importerFunc(func(path string) (*types.Package, error) {
		if p, ok := byPath[path]; ok {
			return p, nil
		}
		return nil, fmt.Errorf("package %q not loaded", path)
	})
	for i, s := range snippets {
		if files[i] == nil {
			continue
		}
		t.Run(fmt.Sprintf("%s:%d", s.readme, s.line), func(t *testing.T) {
			if got := gofmt(s.src); got != s.src {
				t.Errorf("not gofmt-clean; gofmt makes it:\n%s", got)
			}
			var errs []string
			conf := types.Config{Importer: imp, Error: func(err error) { errs = append(errs, err.Error()) }}
			conf.Check(files[i].Name.Name, fset, []*ast.File{files[i]}, nil)
			if len(errs) > 0 {
				t.Errorf("does not compile as pasted:\n%s", strings.Join(errs, "\n"))
			}
		})
	}
}

// moduleLine finds a go.mod's module path.
var moduleLine = regexp.MustCompile(`(?m)^module\s+(\S+)`)

// importsNested returns the folder of the nested module whose packages src imports, or "".
func importsNested(src string, nested map[string]string) string {
	for path, dir := range nested {
		if strings.Contains(src, `"`+path+`"`) || strings.Contains(src, `"`+path+`/`) {
			return dir
		}
	}
	return ""
}

// packageClause finds a snippet that is a whole file (perhaps after a build constraint).
var packageClause = regexp.MustCompile(`(?m)^package [A-Za-z_][A-Za-z0-9_]*\s*$`)

// gofmt formats a snippet as gofmt would, as a file or as the body of one.
func gofmt(src string) string {
	const clause = "package snippet\n\n"
	body := !packageClause.MatchString(src)
	if body {
		src = clause + src
	}
	out, err := format.Source([]byte(src))
	if err != nil {
		return err.Error()
	}
	return strings.TrimPrefix(string(out), clause)
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

// extract returns the ```go blocks of a Markdown text.
func extract(name, text string) []snippet {
	var out []snippet
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != "```go" {
			continue
		}
		start := i
		var body []string
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
			body = append(body, lines[i])
		}
		out = append(out, snippet{readme: name, line: start + 1, src: strings.Join(body, "\n") + "\n"})
	}
	return out
}

func TestExtract(t *testing.T) {
	got := extract("R", "text\n```go\nvar x = 1\n```\n```\nnot go\n```\n```go\nfunc f() {}\n```\n")
	if len(got) != 2 || got[0].src != "var x = 1\n" || got[0].line != 2 || got[1].src != "func f() {}\n" || got[1].line != 8 {
		t.Fatalf("extract = %+v", got)
	}
}
