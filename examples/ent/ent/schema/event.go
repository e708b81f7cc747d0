package schema

import (
	"context"
	"entgo.io/contrib/entgql"

	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"

	"github.com/idgen/idgen"
	"github.com/idgen/idgen/plugins/idgent"
)

// Event has its ID from the idgen mixin and typed duplicate errors from its hook; with
// PlainEvent it measures what the mixin and hook cost per create.
type Event struct{ ent.Schema }

// Mixin of the Event.
func (Event) Mixin() []ent.Mixin { return []ent.Mixin{idgent.ID(nil), idgent.DuplicatesMixin{}} }

// Annotations keep events out of the GraphQL schema.
func (Event) Annotations() []schema.Annotation { return []schema.Annotation{entgql.Skip()} }

// Fields of the Event.
func (Event) Fields() []ent.Field { return []ent.Field{field.String("name")} }

// PlainEvent has its ID from a plain DefaultFunc: the baseline for Event.
type PlainEvent struct{ ent.Schema }

// Annotations keep plain events out of the GraphQL schema.
func (PlainEvent) Annotations() []schema.Annotation { return []schema.Annotation{entgql.Skip()} }

// Fields of the PlainEvent.
func (PlainEvent) Fields() []ent.Field {
	return []ent.Field{
		field.Int64("id").DefaultFunc(func() int64 {
			id, err := idgen.Next(context.Background(), nil)
			if err != nil {
				panic(err) // a DefaultFunc cannot return an error: one reason for the mixin
			}
			return id
		}).Immutable(),
		field.String("name"),
	}
}
