//go:build ignore

// entc generates the example's ent code with the idgen extension and entgql, which writes
// the GraphQL schema (../graph/ent.graphql) and the Relay Noder that gqlgen's resolvers call.
package main

import (
	"log"

	"entgo.io/contrib/entgql"
	"entgo.io/ent/entc"
	"entgo.io/ent/entc/gen"

	"github.com/idgen/idgen/plugins/idgent/entcext"
)

func main() {
	gql, err := entgql.NewExtension(
		entgql.WithSchemaGenerator(),
		entgql.WithSchemaPath("../graph/ent.graphql"),
	)
	if err != nil {
		log.Fatalf("creating the entgql extension: %v", err)
	}
	if err := entc.Generate("./schema", &gen.Config{}, entc.Extensions(entcext.New(), gql)); err != nil {
		log.Fatalf("running ent codegen: %v", err)
	}
}
