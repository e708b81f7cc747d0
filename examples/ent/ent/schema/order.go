package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"

	"github.com/idgen/idgen/examples/ent/models"
	"github.com/idgen/idgen/plugins/idgent"
)

// Order holds the schema definition for the Order entity.
type Order struct{ ent.Schema }

// Mixin gives orders a plain int64 snowflake ID and an OrderNo.
func (Order) Mixin() []ent.Mixin {
	return []ent.Mixin{idgent.ID(nil), idgent.Number[models.OrderNo]("no", nil), idgent.DuplicatesMixin{}}
}

// Fields of the Order. request_id is the client's idempotency key; a guest's order has no
// user_id (NULL); due_at is when it must ship, if the customer said.
func (Order) Fields() []ent.Field {
	return []ent.Field{
		field.String("request_id").MaxLen(64).Unique().Immutable(),
		field.Int64("cents"),
		field.Int64("user_id").GoType(models.UserID(0)).Optional().Nillable(),
		field.Time("due_at").Optional(),
	}
}

// Edges of the Order.
func (Order) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("user", User.Type).Ref("orders").Field("user_id").Unique(),
		edge.To("payments", Payment.Type),
	}
}

// Annotations make Create().CreateOrGet idempotent on request_id, checking the amount, the
// user and the due date.
func (Order) Annotations() []schema.Annotation {
	return []schema.Annotation{
		idgent.Idempotent{Key: []string{"request_id"}, Check: []string{"cents", "user_id", "due_at"}},
		// A plain int64 ID has no prefix, so node(id:) could not tell an order's type from
		// its ID: orders stay out of the GraphQL schema (users and products are in it).
		entgql.Skip(),
	}
}
