package idgent

import (
	"github.com/idgen/idgen/runtime/uniq"
)

// ErrMismatch is matched by every *MismatchError (it is uniq.ErrMismatch).
var ErrMismatch = uniq.ErrMismatch

// MismatchError reports a key reused with different values in the fields the schema's
// Idempotent annotation checks; Model is the schema. CreateOrGet returns it with the
// existing entity. It is uniq.MismatchError, the type the GORM plugin returns too.
type MismatchError = uniq.MismatchError

// Idempotent is the schema annotation that gives the schema's create builder a
// CreateOrGet method (with the entcext extension): Key names the unique key's fields, in
// the order of the unique index; Check names the fields a retry must repeat, else
// CreateOrGet returns a *MismatchError.
//
//	func (Order) Annotations() []schema.Annotation {
//		return []schema.Annotation{idgent.Idempotent{Key: []string{"request_id"}, Check: []string{"cents"}}}
//	}
type Idempotent struct {
	Key   []string
	Check []string `json:",omitempty"`
}

// AnnotationName is the name Idempotent annotations are stored under.
const AnnotationName = "IdgenIdempotent"

// Name implements schema.Annotation.
func (Idempotent) Name() string { return AnnotationName }
