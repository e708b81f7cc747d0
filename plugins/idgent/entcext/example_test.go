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
// Here it generates the examples' schema into a temporary directory: the create builders of
// the schemas annotated idgent.Idempotent get CreateOrGet, the others do not.
func ExampleNew() {
	dir, err := os.MkdirTemp("", "entcext-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	cfg := &gen.Config{Target: dir, Package: "github.com/idgen/idgen/examples/ent/ent"}
	if err := entc.Generate("../../../examples/ent/ent/schema", cfg, entc.Extensions(entcext.New())); err != nil {
		log.Fatal(err)
	}
	for _, name := range []string{"order_create.go", "payment_create.go", "user_create.go"} {
		src, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(name, strings.Contains(string(src), ") CreateOrGet(ctx context.Context)"))
	}
	// Output:
	// order_create.go true
	// payment_create.go true
	// user_create.go false
}
