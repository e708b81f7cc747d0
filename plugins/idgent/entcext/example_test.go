package entcext_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"entgo.io/ent/entc"
	"entgo.io/ent/entc/gen"

	"github.com/idgen/idgen/plugins/idgent/entcext"
)

// The extension is passed to entc.Generate, usually from an entc.go run by go generate.
// Here it generates two schemas (testdata/schema) into a temporary directory: the create
// builder of the one annotated idgent.Idempotent gets CreateOrGet, the other does not.
func ExampleNew() {
	dir, err := os.MkdirTemp("", "entcext-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	cfg := &gen.Config{Target: dir, Package: "example.com/shop/ent"}
	if err := entc.Generate("./testdata/schema", cfg, entc.Extensions(entcext.New())); err != nil {
		log.Fatal(err)
	}
	for _, name := range []string{"order_create.go", "note_create.go"} {
		src, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(name, strings.Contains(string(src), ") CreateOrGet(ctx context.Context)"))
	}
	// Output:
	// order_create.go true
	// note_create.go false
}
