package main

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const newcomerModels = `package models

import "github.com/google/uuid"

//go:generate go tool idgen-gen -gorm

//idgen:snowflake prefix=usr
type UserID int64

//idgen:number prefix=ORD time=20060102150405 zone=Asia/Shanghai check=true
type OrderNo string

//idgen:uuid7
type SessionID uuid.UUID

// Order is a GORM model: the plugin fills No on create.
type Order struct {
	No        OrderNo ` + "`gorm:\"primaryKey\"`" + `
	RequestID string  ` + "`gorm:\"size:64;uniqueIndex\"`" + `
	User      UserID
	Session   SessionID
}
`

const newcomerMain = `package main

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/glebarez/sqlite"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/idgen/idgen"
	"github.com/idgen/idgen/plugins/idgorm"
	"github.com/idgen/idgen/runtime/snowflake"

	"example.com/newcomer/models"
)

func main() {
	gen, err := snowflake.New(snowflake.Classic(), 7, snowflake.Options{})
	if err != nil {
		log.Fatal(err)
	}
	idgen.SetDefault(gen)
	dir, err := os.MkdirTemp("", "newcomer-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	db, err := gorm.Open(sqlite.Open(filepath.Join(dir, "shop.db")), &gorm.Config{Logger: logger.Discard})
	if err != nil {
		log.Fatal(err)
	}
	if err := db.Use(idgorm.New(idgorm.Config{})); err != nil {
		log.Fatal(err)
	}
	if err := db.AutoMigrate(&models.Order{}); err != nil {
		log.Fatal(err)
	}
	user, err := models.NewUserID()
	if err != nil {
		log.Fatal(err)
	}
	session, err := models.NewSessionID()
	if err != nil {
		log.Fatal(err)
	}
	var nos []models.OrderNo
	for attempt := 0; attempt < 2; attempt++ {
		o := models.Order{RequestID: "req-1", User: user, Session: session}
		if _, err := idgorm.CreateOrGet(db, &o, idgorm.Key("RequestID")); err != nil {
			log.Fatal(err)
		}
		nos = append(nos, o.No)
	}
	p, _ := nos[0].Parts()
	fmt.Println("one order:", nos[0] == nos[1], "worker", p.Worker)
}
`

// TestNewcomer walks the README's path for a new user's module, outside this repository:
// go get -tool (the modules replaced by this checkout), go mod tidy, go generate,
// go mod tidy, go build, go vet, and the program runs. It needs the module proxy for the
// dependencies the module cache lacks; it is skipped in -short mode and when GOPROXY is off.
func TestNewcomer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a new module with the go command: skipped in -short mode")
	}
	proxy, err := exec.Command("go", "env", "GOPROXY").Output()
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(string(proxy)) == "off" {
		t.Skip("GOPROXY=off: the newcomer path needs the module proxy")
	}
	root := moduleRoot(t)
	dir := t.TempDir()
	// The checkout is not published, so a proxy asked whether one of its packages is a
	// module of its own may answer with an error rather than 404 (this machine's answers
	// 403), which the go command does not take for "no". Falling back to off ('|') turns
	// any failed answer into "not found"; real dependencies still come from the proxy.
	proxies := strings.NewReplacer(",direct", "", "|direct", "").Replace(strings.TrimSpace(string(proxy)))
	env := append(os.Environ(), "GOWORK=off", "GOPROXY="+proxies+"|off", "GOFLAGS=-buildvcs=false")
	goCmd := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	goCmd("mod", "init", "example.com/newcomer")
	// Every module of this repository replaced by its folder, as a user's build finds each
	// one at its release: the generator is a module of its own, the code it writes imports
	// the root module, and the program the GORM plugin's.
	edit := []string{"mod", "edit", "-require=github.com/idgen/idgen@v0.0.0", "-require=github.com/idgen/idgen/cmd/idgen-gen@v0.0.0"}
	for path, dir := range repoModules(t, root) {
		edit = append(edit, "-replace="+path+"="+dir)
	}
	goCmd(edit...)
	goCmd("get", "-tool", "github.com/idgen/idgen/cmd/idgen-gen")
	for name, content := range map[string]string{"models/models.go": newcomerModels, "main.go": newcomerMain} {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	goCmd("mod", "tidy") // what the code imports before anything is generated: google/uuid
	goCmd("generate", "./...")
	goCmd("mod", "tidy") // what the generated code imports: gorm.io/gorm for -gorm
	goCmd("build", "./...")
	goCmd("vet", "./...")
	if out := goCmd("run", "."); out != "one order: true worker 7\n" {
		t.Errorf("the program printed %q", out)
	}

	mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(mod), "\ntool github.com/idgen/idgen/cmd/idgen-gen\n") {
		t.Errorf("go.mod has no tool line for idgen-gen:\n%s", mod)
	}
	gen, err := os.ReadFile(filepath.Join(dir, "models", "models_idgen.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !isGenerated(gen) || !strings.Contains(string(gen), "GormDBDataType") {
		t.Errorf("models_idgen.go is not the generator's -gorm output:\n%.300s", gen)
	}
	// go tool idgen-gen still runs after tidy: go.sum holds what the tool needs.
	goCmd("tool", "idgen-gen", "-n", "./models")
}

// repoModules returns the module path and folder of every go.mod under root.
func repoModules(t *testing.T, root string) map[string]string {
	t.Helper()
	mods := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && path != root) {
			return filepath.SkipDir
		}
		if d.Name() != "go.mod" {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for line := range strings.Lines(string(b)) {
			if f := strings.Fields(line); len(f) == 2 && f[0] == "module" {
				mods[strings.Trim(f[1], `"`)] = filepath.Dir(path)
				break
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return mods
}
