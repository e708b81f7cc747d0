// Package entcext is the entc extension of idgen: it adds CreateOrGet to the create
// builders of ent schemas annotated with idgent.Idempotent, from the templates beside it
// (template/*.tmpl, embedded), and turns on the ent features they need (sql/upsert,
// sql/lock, and sql/execquery, which gives the generated Tx the ExecContext that
// idgent.OnceTx records message keys with). Use it in the program that runs entc:
//
//	entc.Generate("./schema", &gen.Config{}, entc.Extensions(entcext.New()))
//
// It lives apart from package idgent so that programs using ent at run time do not link
// the code generator.
package entcext

import (
	"embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"entgo.io/ent/entc"
	"entgo.io/ent/entc/gen"

	"github.com/idgen/idgen/plugins/idgent"
)

// templates holds the text/template files the extension adds to entc.
//
//go:embed template/*.tmpl
var templates embed.FS

// Extension implements entc.Extension.
type Extension struct {
	entc.DefaultExtension
}

// New returns the extension.
func New() *Extension { return &Extension{} }

// Options implements entc.Extension: CreateOrGet builds on upserts and locking reads,
// OnceTx on statements run in a transaction.
func (*Extension) Options() []entc.Option {
	return []entc.Option{entc.FeatureNames(gen.FeatureUpsert.Name, gen.FeatureLock.Name, gen.FeatureExecQuery.Name)}
}

// Templates implements entc.Extension.
func (*Extension) Templates() []*gen.Template {
	return []*gen.Template{gen.MustParse(gen.NewTemplate("idgen").ParseFS(templates, "template/*.tmpl"))}
}

// Hooks implements entc.Extension: before any template runs, it checks each
// idgent.Idempotent annotation against its schema and replaces it with what the templates
// need, so a mistake fails generation with a message naming the schema.
func (*Extension) Hooks() []gen.Hook {
	return []gen.Hook{func(next gen.Generator) gen.Generator {
		return gen.GenerateFunc(func(g *gen.Graph) error {
			for _, t := range g.Nodes {
				if err := resolve(t); err != nil {
					return err
				}
			}
			return next.Generate(g)
		})
	}}
}

// resolved is what the CreateOrGet template reads from a schema's annotation.
type resolved struct {
	Keys, Checks []*gen.Field
	// Indexes are the names the key's unique index may have: MySQL reports duplicates by
	// index name.
	Indexes []string
}

func resolve(t *gen.Type) error {
	raw, ok := t.Annotations[idgent.AnnotationName]
	if !ok {
		return nil
	}
	if _, done := raw.(*resolved); done {
		return nil
	}
	var a idgent.Idempotent
	b, err := json.Marshal(raw)
	if err == nil {
		err = json.Unmarshal(b, &a)
	}
	if err != nil {
		return fmt.Errorf("entcext: schema %s: reading its Idempotent annotation: %w", t.Name, err)
	}
	if len(a.Key) == 0 {
		return fmt.Errorf("entcext: schema %s: Idempotent needs a Key", t.Name)
	}
	r := &resolved{}
	for _, list := range []struct {
		names []string
		out   *[]*gen.Field
		what  string
	}{{a.Key, &r.Keys, "key"}, {a.Check, &r.Checks, "checked"}} {
		for _, name := range list.names {
			i := slices.IndexFunc(t.Fields, func(f *gen.Field) bool { return f.Name == name })
			if i < 0 {
				return fmt.Errorf("entcext: schema %s: Idempotent %s field %q does not exist", t.Name, list.what, name)
			}
			*list.out = append(*list.out, t.Fields[i])
		}
	}
	if len(r.Keys) == 1 && r.Keys[0].Unique {
		// A unique column's index is named after the column.
		r.Indexes = append(r.Indexes, r.Keys[0].Name, t.Table()+"_"+r.Keys[0].Name)
	}
	for _, idx := range t.Indexes {
		if idx.Unique && slices.Equal(idx.Columns, a.Key) {
			r.Indexes = append(r.Indexes, idx.Name)
		}
	}
	if len(r.Indexes) == 0 {
		return fmt.Errorf("entcext: schema %s: Idempotent key (%s) is not unique: make the field Unique() or add index.Fields(%s).Unique()",
			t.Name, strings.Join(a.Key, ", "), quoteAll(a.Key))
	}
	t.Annotations[idgent.AnnotationName] = r
	return nil
}

func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}
