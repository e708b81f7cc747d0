//go:build ignore

// entc generates the example's ent code with the idgen extension.
package main

import (
	"log"

	"entgo.io/ent/entc"
	"entgo.io/ent/entc/gen"

	"github.com/idgen/idgen/plugins/idgent/entcext"
)

func main() {
	if err := entc.Generate("./schema", &gen.Config{}, entc.Extensions(entcext.New())); err != nil {
		log.Fatalf("running ent codegen: %v", err)
	}
}
