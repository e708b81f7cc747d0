// Package schema holds the ent schemas ExampleNew generates from: one annotated
// idgent.Idempotent, one not.
package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"

	"github.com/idgen/idgen/plugins/idgent"
)

// Order gets a snowflake ID and an idempotent create on request_id.
type Order struct{ ent.Schema }

// Mixin gives orders a snowflake ID.
func (Order) Mixin() []ent.Mixin { return []ent.Mixin{idgent.ID(nil)} }

// Fields of the Order: request_id is the client's idempotency key.
func (Order) Fields() []ent.Field {
	return []ent.Field{field.String("request_id").MaxLen(64).Unique().Immutable(), field.Int64("cents")}
}

// Annotations make Create().CreateOrGet idempotent on request_id, checking the amount.
func (Order) Annotations() []schema.Annotation {
	return []schema.Annotation{idgent.Idempotent{Key: []string{"request_id"}, Check: []string{"cents"}}}
}

// Note is not annotated: its create builder gets no CreateOrGet.
type Note struct{ ent.Schema }

// Fields of the Note.
func (Note) Fields() []ent.Field { return []ent.Field{field.String("text")} }
