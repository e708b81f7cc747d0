// Package schema holds the ent schemas of the example: users, their orders, payments, and products.
package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"

	"github.com/idgen/idgen/examples/ent/models"
	"github.com/idgen/idgen/plugins/idgent"
)

// User holds the schema definition for the User entity.
type User struct{ ent.Schema }

// Mixin gives users a snowflake UserID, and typed duplicate errors.
func (User) Mixin() []ent.Mixin {
	return []ent.Mixin{idgent.TypedID[models.UserID](nil), idgent.DuplicatesMixin{}}
}

// Fields of the User.
func (User) Fields() []ent.Field {
	return []ent.Field{
		field.String("email").MaxLen(191).Unique(),
		field.String("name").Default(""),
	}
}

// Edges of the User.
func (User) Edges() []ent.Edge {
	// Orders are not in the GraphQL schema.
	return []ent.Edge{edge.To("orders", Order.Type).Annotations(entgql.Skip())}
}
