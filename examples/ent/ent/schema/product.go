package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"

	"github.com/idgen/idgen/examples/ent/models"
	"github.com/idgen/idgen/plugins/idgent"
)

// Product holds the schema definition for the Product entity: with User, a Relay node
// whose ID ("prd_…") tells its type.
type Product struct{ ent.Schema }

// Mixin gives products a snowflake ProductID, and typed duplicate errors.
func (Product) Mixin() []ent.Mixin {
	return []ent.Mixin{idgent.TypedID[models.ProductID](nil), idgent.DuplicatesMixin{}}
}

// Fields of the Product.
func (Product) Fields() []ent.Field {
	return []ent.Field{
		field.String("name"),
		field.Int64("cents"),
	}
}
