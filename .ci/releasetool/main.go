// Command releasetool keeps the repository's Go modules in lockstep, as tagging a commit
// must publish them. .ci/release and .ci/modules run it; nothing is published from here.
// It is a module of its own that needs only golang.org/x/mod, so that it builds before the
// modules it rewrites can resolve one another.
//
//	releasetool list           the modules, root first: folder, path, published or unpublished
//	releasetool set VERSION    require every published module at VERSION everywhere, drop
//	                           the replace directives of published modules, write VERSION
//	                           into version.go, write go.work, and tidy every module
//	releasetool tidy           write go.work and tidy every module at the current version
//	releasetool proxy DIR      write every published module, at the current version, into
//	                           DIR as a file:// module proxy (GOPROXY=file://DIR)
//	releasetool check          the layout rules: no module where it could import another
//	                           module's internal package, no published module requiring an
//	                           unpublished one, no cycle of requirements
//
// The published modules require one another at the version of the release they belong
// to. Tidying a module means resolving its published siblings at that version before any
// proxy has them, so releasetool serves them itself: it writes each published module, in
// the order of their requirements, into a temporary file:// proxy and tidies the modules
// that require it against that proxy (GOWORK=off, GONOSUMDB for github.com/idgen/idgen).
// set keeps the go.sum lines of the siblings (a release commit is tidy as tagged: its
// go.sum has what `go install` at that version verifies); tidy drops them again, since
// development resolves siblings through go.work and those lines would go stale with every
// change. The unpublished modules (examples, golden, bench, integration) are never served:
// they require one another by replace directives to their folders.
package main

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
	"golang.org/x/mod/zip"
)

// repoPath is the module path of the root module; every module of the repository has it
// as a prefix.
const repoPath = "github.com/idgen/idgen"

// unpublished are the top folders of the modules nobody installs: no published module may
// require one.
var unpublished = []string{"examples", "golden", "bench", "integration", "proto", "tools"}

// outsideWork are the modules go.work leaves out: proto is the module of the pinned code
// generators (buf, protoc-gen-go, protoc-gen-connect-go as `go tool` dependencies), and
// tools/sqlc that of sqlc (for integration/sqlc), whose requirements would otherwise raise the
// versions every other module builds with.
var outsideWork = []string{"proto", "tools/sqlc"}

// workPins are third-party replacements go.work carries for the workspace alone. The
// examples module needs entgo.io/contrib v0.7.0, which requires the google.golang.org/genproto
// of 2022, from before googleapis/rpc and googleapis/api became modules of their own;
// beside the server's grpc and etcd, which import those, the workspace's one build list
// then finds each of their packages in two modules (an ambiguous import). Each module on
// its own (GOWORK=off, as users build) has no such pair, and tidy drops a requirement
// that only settles it, so the pin lives here.
var workPins = []string{
	"google.golang.org/genproto v0.0.0-20221118155620-16455021b5e6 => google.golang.org/genproto v0.0.0-20261110000943-09e21b237f2c",
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("releasetool: ")
	if len(os.Args) < 2 {
		usage()
	}
	root, err := repoRoot()
	if err != nil {
		log.Fatal(err)
	}
	mods, err := load(root)
	if err != nil {
		log.Fatal(err)
	}
	switch cmd, args := os.Args[1], os.Args[2:]; {
	case cmd == "list" && len(args) == 0:
		for _, m := range mods {
			state := "published"
			if !m.Published {
				state = "unpublished"
			}
			fmt.Printf("%s\t%s\t%s\n", m.Dir, m.Path, state)
		}
	case cmd == "set" && len(args) == 1:
		if err := checkVersion(args[0]); err != nil {
			log.Fatal(err)
		}
		err = set(root, mods, args[0])
	case cmd == "tidy" && len(args) == 0:
		if err = writeWork(root, mods); err == nil {
			err = tidyAll(root, mods, false)
		}
	case cmd == "check" && len(args) == 0:
		err = check(root, mods)
	case cmd == "proxy" && len(args) == 1:
		var dir string
		if dir, err = filepath.Abs(args[0]); err == nil {
			err = serve(root, mods, dir)
		}
	default:
		usage()
	}
	if err != nil {
		log.Fatal(err)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: releasetool list | set VERSION | tidy | proxy DIR | check")
	os.Exit(2)
}

// Module is one Go module of the repository.
type Module struct {
	Dir       string // relative to the repository root, "." for the root module
	Path      string // module path
	Published bool
}

// repoRoot returns the folder of the root module: the working directory or one above it.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		if f, err := modfile.ParseLax("go.mod", mustRead(filepath.Join(d, "go.mod")), nil); err == nil && f.Module != nil && f.Module.Mod.Path == repoPath {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no go.mod of %s in %s or above", repoPath, dir)
		}
	}
}

func mustRead(name string) []byte {
	b, _ := os.ReadFile(name)
	return b
}

// load finds every module of the repository, the root module first, then by folder.
func load(root string) ([]Module, error) {
	var mods []Module
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.Name() != "go.mod" {
			return nil
		}
		f, err := modfile.ParseLax(path, mustRead(path), nil)
		if err != nil {
			return err
		}
		dir, _ := filepath.Rel(root, filepath.Dir(path))
		dir = filepath.ToSlash(dir)
		want := repoPath
		if dir != "." {
			want += "/" + dir
		}
		if f.Module == nil || f.Module.Mod.Path != want {
			return fmt.Errorf("%s: module path is not %s", path, want)
		}
		top, _, _ := strings.Cut(dir, "/")
		mods = append(mods, Module{Dir: dir, Path: want, Published: !slices.Contains(unpublished, top)})
		return nil
	})
	slices.SortFunc(mods, func(a, b Module) int {
		if (a.Dir == ".") != (b.Dir == ".") {
			if a.Dir == "." {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Dir, b.Dir)
	})
	return mods, err
}

// checkVersion refuses what cannot be a release of these module paths: not canonical
// semver, build metadata, or a major version above 1 (the paths have no /vN suffix).
func checkVersion(v string) error {
	switch {
	case !semver.IsValid(v) || semver.Canonical(v) != v:
		return fmt.Errorf("%q is not a semantic version such as v0.3.0 or v1.2.0-rc.1", v)
	case semver.Build(v) != "":
		return fmt.Errorf("%q has build metadata, which module versions cannot carry", v)
	case semver.Major(v) != "v0" && semver.Major(v) != "v1":
		return fmt.Errorf("%q needs a /%s suffix on every module path", v, semver.Major(v))
	}
	return nil
}

// versionFile holds the root package's Version constant, which set rewrites.
const versionFile = "version.go"

var versionRE = regexp.MustCompile(`(?m)^const Version = "([^"]*)"$`)

// current returns the version in version.go.
func current(root string) (string, error) {
	m := versionRE.FindSubmatch(mustRead(filepath.Join(root, versionFile)))
	if m == nil {
		return "", fmt.Errorf("%s: no line `const Version = \"...\"`", versionFile)
	}
	return string(m[1]), nil
}

// set moves every module to version v and tidies them, keeping the siblings' go.sum lines.
func set(root string, mods []Module, v string) error {
	name := filepath.Join(root, versionFile)
	src := mustRead(name)
	if !versionRE.Match(src) {
		return fmt.Errorf("%s: no line `const Version = \"...\"`", versionFile)
	}
	if err := os.WriteFile(name, versionRE.ReplaceAll(src, []byte(`const Version = "`+v+`"`)), 0o644); err != nil {
		return err
	}
	if err := writeWork(root, mods); err != nil {
		return err
	}
	return tidyAll(root, mods, true)
}

// writeWork writes go.work: every module, and each published one replaced at the current
// version by its folder (a nested module's requirement of an enclosing one at a version no
// proxy has would otherwise make the go command fetch it, workspace or not).
func writeWork(root string, mods []Module) error {
	v, err := current(root)
	if err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("go 1.26.0\n\nuse (\n")
	for _, m := range mods {
		if slices.Contains(outsideWork, m.Dir) {
			continue
		}
		if m.Dir == "." {
			b.WriteString("\t.\n")
		} else {
			fmt.Fprintf(&b, "\t%s\n", dirArg(m.Dir))
		}
	}
	b.WriteString(")\n\nreplace (\n")
	for _, m := range mods {
		if m.Published {
			fmt.Fprintf(&b, "\t%s %s => %s\n", m.Path, v, dirArg(m.Dir))
		}
	}
	for _, p := range workPins {
		fmt.Fprintf(&b, "\t%s\n", p)
	}
	b.WriteString(")\n")
	return os.WriteFile(filepath.Join(root, "go.work"), []byte(b.String()), 0o644)
}

// dirArg is a module folder as go.work writes it.
func dirArg(dir string) string {
	if dir == "." {
		return "./"
	}
	return "./" + dir
}

// tidyAll points every module's requirements of published modules at the current version,
// drops replace directives of published modules, and tidies every module against a
// temporary proxy of the published ones. Unless keepSums, the go.sum lines of this
// repository's modules are dropped afterwards.
func tidyAll(root string, mods []Module, keepSums bool) error {
	v, err := current(root)
	if err != nil {
		return err
	}
	for _, m := range mods {
		if err := pin(root, m, mods, v); err != nil {
			return err
		}
	}
	// The proxy, and a module cache of this run's own: a cache shared with earlier runs
	// may hold this repository's modules at v with other contents, which the go command
	// would use instead of asking the proxy.
	tmp, err := os.MkdirTemp("", "idgen-release-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	proxy := filepath.Join(tmp, "proxy")
	order, err := topo(root, mods)
	if err != nil {
		return err
	}
	served := map[string]map[string][32]byte{} // what each published module held when served
	for _, m := range order {
		if m.Published {
			if err := tidy(root, m, proxy); err != nil {
				return err
			}
			if err := write(root, m, v, proxy); err != nil {
				return err
			}
			if served[m.Dir], err = snapshot(root, m); err != nil {
				return err
			}
		}
	}
	for _, m := range order {
		if !m.Published {
			if err := tidy(root, m, proxy); err != nil {
				return err
			}
			if err := prune(root, m); err != nil {
				return err
			}
		}
	}
	// A module that changed after it was served would be published with other contents
	// than the go.sum lines of its siblings hash: the release would fail to install.
	for _, m := range order {
		if !m.Published {
			continue
		}
		now, err := snapshot(root, m)
		if err != nil {
			return err
		}
		for name, sum := range now {
			if served[m.Dir][name] != sum {
				return fmt.Errorf("%s changed after %s was served to its dependents' tidy", name, m.Path)
			}
		}
		for name := range served[m.Dir] {
			if _, ok := now[name]; !ok {
				return fmt.Errorf("%s went away after %s was served to its dependents' tidy", name, m.Path)
			}
		}
	}
	if keepSums {
		return nil
	}
	for _, m := range mods {
		if err := dropSums(root, m); err != nil {
			return err
		}
	}
	return nil
}

// pin rewrites m's go.mod: requirements of published modules at v, no replace directive
// of a published module. A published module loses its requirements and replace directives
// of unpublished modules too: if it imports one, its tidy fails (no proxy has it), and
// no published module may require an unpublished one.
func pin(root string, m Module, mods []Module, v string) error {
	name := filepath.Join(root, m.Dir, "go.mod")
	f, err := modfile.Parse(name, mustRead(name), nil)
	if err != nil {
		return err
	}
	byPath := map[string]Module{}
	for _, o := range mods {
		byPath[o.Path] = o
	}
	for _, r := range slices.Clone(f.Require) {
		o, ok := byPath[r.Mod.Path]
		switch {
		case !ok:
		case o.Published:
			if err := f.AddRequire(r.Mod.Path, v); err != nil {
				return err
			}
		case m.Published:
			if err := f.DropRequire(r.Mod.Path); err != nil {
				return err
			}
		}
	}
	for _, r := range slices.Clone(f.Replace) {
		if o, ok := byPath[r.Old.Path]; ok && (o.Published || m.Published) {
			if err := f.DropReplace(r.Old.Path, r.Old.Version); err != nil {
				return err
			}
		}
	}
	if !m.Published {
		// Every unpublished sibling replaced by its folder, so tidy finds the ones m
		// imports; prune drops the others afterwards.
		for _, o := range mods {
			if o.Published || o.Dir == m.Dir {
				continue
			}
			rel, err := filepath.Rel(filepath.Join(root, m.Dir), filepath.Join(root, o.Dir))
			if err != nil {
				return err
			}
			rel = filepath.ToSlash(rel)
			if !strings.HasPrefix(rel, ".") {
				rel = "./" + rel
			}
			if err := f.AddReplace(o.Path, "", rel, ""); err != nil {
				return err
			}
		}
	}
	f.Cleanup()
	if m.Published && len(f.Replace) > 0 {
		return fmt.Errorf("%s: a published module carries replace directives (go install refuses them)", name)
	}
	out, err := f.Format()
	if err != nil {
		return err
	}
	return os.WriteFile(name, out, 0o644)
}

// prune drops the replace directives of m's go.mod for this repository's modules that m
// does not require.
func prune(root string, m Module) error {
	name := filepath.Join(root, m.Dir, "go.mod")
	f, err := modfile.Parse(name, mustRead(name), nil)
	if err != nil {
		return err
	}
	required := map[string]bool{}
	for _, r := range f.Require {
		required[r.Mod.Path] = true
	}
	for _, r := range slices.Clone(f.Replace) {
		if (r.Old.Path == repoPath || strings.HasPrefix(r.Old.Path, repoPath+"/")) && !required[r.Old.Path] {
			if err := f.DropReplace(r.Old.Path, r.Old.Version); err != nil {
				return err
			}
		}
	}
	f.Cleanup()
	out, err := f.Format()
	if err != nil {
		return err
	}
	return os.WriteFile(name, out, 0o644)
}

// topo orders the modules so that every module comes after the published modules it
// requires.
func topo(root string, mods []Module) ([]Module, error) {
	deps := map[string][]string{}
	byPath := map[string]Module{}
	for _, m := range mods {
		byPath[m.Path] = m
		name := filepath.Join(root, m.Dir, "go.mod")
		f, err := modfile.Parse(name, mustRead(name), nil)
		if err != nil {
			return nil, err
		}
		for _, r := range f.Require {
			if r.Mod.Path == repoPath || strings.HasPrefix(r.Mod.Path, repoPath+"/") {
				deps[m.Path] = append(deps[m.Path], r.Mod.Path)
			}
		}
	}
	var order []Module
	state := map[string]int{} // 1 visiting, 2 done
	var visit func(p string, from []string) error
	visit = func(p string, from []string) error {
		switch state[p] {
		case 1:
			return fmt.Errorf("a cycle of requirements: %s", strings.Join(append(from, p), " -> "))
		case 2:
			return nil
		}
		m, ok := byPath[p]
		if !ok {
			return fmt.Errorf("%s requires %s, which is no module of this repository", from[len(from)-1], p)
		}
		state[p] = 1
		for _, d := range deps[p] {
			if err := visit(d, append(from, p)); err != nil {
				return err
			}
		}
		state[p] = 2
		order = append(order, m)
		return nil
	}
	for _, m := range mods {
		if err := visit(m.Path, nil); err != nil {
			return nil, err
		}
	}
	return order, nil
}

// goCmd runs go in m's folder outside any workspace, with the published modules of this
// repository served from proxy, the rest from this machine's module cache or the usual
// proxy, and a module cache of its own beside proxy.
func goCmd(root string, m Module, proxy string, args ...string) *exec.Cmd {
	cmd := exec.Command("go", args...)
	cmd.Dir = filepath.Join(root, m.Dir)
	env := func(name, def string) string {
		out, err := exec.Command("go", "env", name).Output()
		if v := string(bytes.TrimSpace(out)); err == nil && v != "" {
			return v
		}
		return def
	}
	upstream := env("GOPROXY", "https://proxy.golang.org,direct")
	cache := filepath.ToSlash(env("GOMODCACHE", filepath.Join(os.Getenv("HOME"), "go", "pkg", "mod")))
	cmd.Env = append(os.Environ(),
		"GOWORK=off",
		"GOFLAGS=-mod=mod -modcacherw",
		"GOMODCACHE="+filepath.Join(filepath.Dir(proxy), "modcache"),
		"GOPROXY=file://"+filepath.ToSlash(proxy)+",file://"+cache+"/cache/download,"+upstream,
		"GONOSUMDB="+repoPath,
		"GOPRIVATE=",
	)
	cmd.Stderr = os.Stderr
	return cmd
}

// tidy runs go mod tidy in m, and drops the empty require blocks tidy leaves behind when
// it empties one.
func tidy(root string, m Module, proxy string) error {
	if err := goCmd(root, m, proxy, "mod", "tidy").Run(); err != nil {
		return fmt.Errorf("go mod tidy in %s: %w", m.Dir, err)
	}
	name := filepath.Join(root, m.Dir, "go.mod")
	b := emptyBlock.ReplaceAll(mustRead(name), nil)
	return os.WriteFile(name, b, 0o644)
}

var emptyBlock = regexp.MustCompile(`(?m)^\n?require \(\n\)\n`)

// dropSums removes the lines of this repository's modules from m's go.sum.
func dropSums(root string, m Module) error {
	name := filepath.Join(root, m.Dir, "go.sum")
	b, err := os.ReadFile(name)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var out []byte
	for line := range bytes.Lines(b) {
		if p, _, _ := bytes.Cut(line, []byte(" ")); string(p) == repoPath || bytes.HasPrefix(p, []byte(repoPath+"/")) {
			continue
		}
		out = append(out, line...)
	}
	if len(out) == 0 {
		return os.Remove(name)
	}
	return os.WriteFile(name, out, 0o644)
}

// serve writes every published module at the current version into dir as a proxy.
func serve(root string, mods []Module, dir string) error {
	v, err := current(root)
	if err != nil {
		return err
	}
	for _, m := range mods {
		if m.Published {
			if err := write(root, m, v, dir); err != nil {
				return err
			}
		}
	}
	return nil
}

// write adds m at version v to the file:// proxy in dir: its .info, .mod and .zip and
// its version list. The zip holds the files git tracks in m's folder (outside nested
// modules), read from the working tree, as the module proxy builds it from the tag.
func write(root string, m Module, v, dir string) error {
	files, err := moduleFiles(root, m)
	if err != nil {
		return err
	}
	esc, err := module.EscapePath(m.Path)
	if err != nil {
		return err
	}
	at := filepath.Join(dir, filepath.FromSlash(esc), "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		return err
	}
	var zbuf bytes.Buffer
	if err := zip.Create(&zbuf, module.Version{Path: m.Path, Version: v}, files); err != nil {
		return fmt.Errorf("zipping %s: %w", m.Dir, err)
	}
	info := fmt.Sprintf(`{"Version":%q,"Time":"2026-01-01T00:00:00Z"}`+"\n", v)
	for name, data := range map[string][]byte{
		v + ".zip":  zbuf.Bytes(),
		v + ".mod":  mustRead(filepath.Join(root, m.Dir, "go.mod")),
		v + ".info": []byte(info),
	} {
		if err := os.WriteFile(filepath.Join(at, name), data, 0o644); err != nil {
			return err
		}
	}
	list := filepath.Join(at, "list")
	known := strings.Fields(string(mustRead(list)))
	if !slices.Contains(known, v) {
		known = append(known, v)
	}
	return os.WriteFile(list, []byte(strings.Join(known, "\n")+"\n"), 0o644)
}

// snapshot returns the SHA-256 of every file of m, by path.
func snapshot(root string, m Module) (map[string][32]byte, error) {
	files, err := moduleFiles(root, m)
	if err != nil {
		return nil, err
	}
	sums := make(map[string][32]byte, len(files))
	for _, f := range files {
		b, err := os.ReadFile(f.(file).full)
		if err != nil {
			return nil, err
		}
		sums[f.Path()] = sha256.Sum256(b)
	}
	return sums, nil
}

// moduleFiles lists the files git tracks under m's folder, minus those of nested modules.
func moduleFiles(root string, m Module) ([]zip.File, error) {
	out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--", m.Dir).Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-files %s: %w", m.Dir, err)
	}
	var paths []string
	for p := range strings.SplitSeq(strings.TrimRight(string(out), "\x00"), "\x00") {
		if p != "" {
			paths = append(paths, p)
		}
	}
	nested := map[string]bool{}
	for _, p := range paths {
		if filepath.Base(p) == "go.mod" && filepath.Dir(p) != filepath.Clean(m.Dir) {
			nested[filepath.Dir(p)] = true
		}
	}
	var files []zip.File
	for _, p := range paths {
		skip := false
		for d := filepath.Dir(p); d != "." && d != filepath.Clean(m.Dir); d = filepath.Dir(d) {
			if nested[d] {
				skip = true
				break
			}
		}
		if skip {
			continue
		}
		rel := p
		if m.Dir != "." {
			rel = strings.TrimPrefix(p, m.Dir+"/")
		}
		full := filepath.Join(root, p)
		info, err := os.Lstat(full)
		if errors.Is(err, os.ErrNotExist) {
			continue // deleted in the working tree
		}
		if err != nil {
			return nil, err
		}
		files = append(files, file{path: rel, full: full, info: info})
	}
	return files, nil
}

// file is a zip.File read from the working tree.
type file struct {
	path string
	full string
	info os.FileInfo
}

func (f file) Path() string                 { return f.path }
func (f file) Lstat() (os.FileInfo, error)  { return f.info, nil }
func (f file) Open() (io.ReadCloser, error) { return os.Open(f.full) }

// check enforces the layout rules that make version skew between modules harmless. The go
// command lets a package import an internal package of any module whose internal folder's
// parent is a prefix of the importer's path, so a module nested under another module's
// internal parent could import that module's internals and break when the two are pinned
// at different versions. No module may sit there, no published module may require an
// unpublished one, and requirements may not form a cycle.
func check(root string, mods []Module) error {
	var problems []string
	dirs := map[string]bool{}
	for _, m := range mods {
		dirs[m.Dir] = true
	}
	for _, m := range mods {
		err := filepath.WalkDir(filepath.Join(root, m.Dir), func(path string, d os.DirEntry, err error) error {
			if err != nil || !d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			rel = filepath.ToSlash(rel)
			if rel != m.Dir && (dirs[rel] || strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
				return filepath.SkipDir // another module, or nothing Go builds
			}
			if d.Name() != "internal" {
				return nil
			}
			parent := filepath.ToSlash(filepath.Dir(rel))
			for _, o := range mods {
				if o.Dir != m.Dir && (parent == "." || strings.HasPrefix(o.Dir+"/", parent+"/")) {
					problems = append(problems, fmt.Sprintf("module %s (%s) could import %s's internal packages in %s/", o.Path, o.Dir, m.Path, rel))
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	byPath := map[string]Module{}
	for _, m := range mods {
		byPath[m.Path] = m
	}
	for _, m := range mods {
		if !m.Published {
			continue
		}
		name := filepath.Join(root, m.Dir, "go.mod")
		f, err := modfile.Parse(name, mustRead(name), nil)
		if err != nil {
			return err
		}
		for _, r := range f.Require {
			if o, ok := byPath[r.Mod.Path]; ok && !o.Published {
				problems = append(problems, fmt.Sprintf("the published module %s requires the unpublished %s", m.Path, o.Path))
			}
		}
		if len(f.Replace) > 0 {
			problems = append(problems, fmt.Sprintf("the published module %s has replace directives", m.Path))
		}
	}
	if _, err := topo(root, mods); err != nil {
		problems = append(problems, err.Error())
	}
	if len(problems) > 0 {
		return errors.New("the module layout breaks its rules:\n\t" + strings.Join(problems, "\n\t"))
	}
	fmt.Printf("%d modules (%d published): no module can import another's internal packages, no published module requires an unpublished one, no cycle\n", len(mods), countPublished(mods))
	return nil
}

func countPublished(mods []Module) int {
	n := 0
	for _, m := range mods {
		if m.Published {
			n++
		}
	}
	return n
}
