package schema

import (
	"entgo.io/contrib/entgql"
	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"github.com/idgen/idgen/examples/ent/models"
	"github.com/idgen/idgen/plugins/idgent"
)

// Payment holds the schema definition for the Payment entity.
type Payment struct{ ent.Schema }

// Mixin gives payments a UUIDv7 ID and a transaction number.
func (Payment) Mixin() []ent.Mixin {
	return []ent.Mixin{idgent.UUIDID[models.PaymentID](), idgent.Number[models.TxnNo]("txn_no", nil), idgent.DuplicatesMixin{}}
}

// Fields of the Payment: (order_id, attempt) identifies a charge attempt.
func (Payment) Fields() []ent.Field {
	return []ent.Field{
		field.Int64("order_id"),
		field.Int("attempt"),
		field.Int64("cents"),
	}
}

// Edges of the Payment.
func (Payment) Edges() []ent.Edge {
	return []ent.Edge{edge.From("order", Order.Type).Ref("payments").Field("order_id").Unique().Required()}
}

// Indexes of the Payment.
func (Payment) Indexes() []ent.Index {
	return []ent.Index{index.Fields("order_id", "attempt").Unique()}
}

// Annotations make a charge attempt idempotent on (order_id, attempt).
func (Payment) Annotations() []schema.Annotation {
	return []schema.Annotation{
		idgent.Idempotent{Key: []string{"order_id", "attempt"}, Check: []string{"cents"}},
		// A UUIDv7 has no prefix, so node(id:) could not tell a payment's type from its ID:
		// payments stay out of the GraphQL schema.
		entgql.Skip(),
	}
}
