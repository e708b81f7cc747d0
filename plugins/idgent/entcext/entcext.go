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
	"strconv"
	"strings"

	"entgo.io/ent/dialect"
	"entgo.io/ent/entc"
	"entgo.io/ent/entc/gen"
	entfield "entgo.io/ent/schema/field"

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
	Keys   []*gen.Field
	Checks []*check
	// Indexes are the names the key's unique index may have: MySQL reports duplicates by
	// index name.
	Indexes []string
}

// check is a field CreateOrGet compares with the stored row.
type check struct {
	*gen.Field
	// Digits is, for a time field, the idgentimpl.Digits literal of its column's
	// precision on each database; "" for any other field.
	Digits string
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
	field := func(name, what string) (*gen.Field, error) {
		i := slices.IndexFunc(t.Fields, func(f *gen.Field) bool { return f.Name == name })
		if i < 0 {
			return nil, fmt.Errorf("entcext: schema %s: Idempotent %s field %q does not exist", t.Name, what, name)
		}
		return t.Fields[i], nil
	}
	for _, name := range a.Key {
		f, err := field(name, "key")
		if err != nil {
			return err
		}
		r.Keys = append(r.Keys, f)
	}
	for _, name := range a.Check {
		f, err := field(name, "checked")
		if err != nil {
			return err
		}
		c := &check{Field: f}
		if f.Type != nil && f.Type.Type == entfield.TypeTime {
			c.Digits = fmt.Sprintf("idgentimpl.Digits{MySQL: %d, Postgres: %d}",
				timeDigits(f.Column().SchemaType[dialect.MySQL], 0), timeDigits(f.Column().SchemaType[dialect.Postgres], 6))
		}
		r.Checks = append(r.Checks, c)
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

// timeDigits returns the fractional-second digits a time column of schemaType keeps on a
// database whose time types keep def digits when they name none (MySQL 0, PostgreSQL 6):
// the N of "datetime(N)", "timestamp(N) with time zone" and the like, else def ("" is
// ent's default type). Another type (date) compares exactly, -1: how it rounds an instant
// is the server's business.
func timeDigits(schemaType string, def int) int {
	t := strings.ToLower(strings.TrimSpace(schemaType))
	if t == "" {
		return def
	}
	if !strings.HasPrefix(t, "time") && !strings.HasPrefix(t, "datetime") {
		return -1
	}
	i := strings.IndexByte(t, '(')
	if i < 0 {
		return def
	}
	j := strings.IndexByte(t[i:], ')')
	if j < 0 {
		return def
	}
	n, err := strconv.Atoi(strings.TrimSpace(t[i+1 : i+j]))
	if err != nil || n < 0 || n > 9 {
		return def
	}
	return n
}

func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}
