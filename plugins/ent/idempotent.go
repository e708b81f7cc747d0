package idgent

import (
	stdsql "database/sql"
	"errors"
	"strings"

	"entgo.io/ent/dialect"

	"github.com/idgen/idgen/internal/payload"
	"github.com/idgen/idgen/runtime/uniq"
)

// ErrMismatch is matched by every *MismatchError (it is uniq.ErrMismatch).
var ErrMismatch = uniq.ErrMismatch

// MismatchError reports a key reused with different values in the fields the schema's
// Idempotent annotation checks; Model is the schema. CreateOrGet returns it with the
// existing entity. It is uniq.MismatchError, the type the GORM plugin returns too.
type MismatchError = uniq.MismatchError

// KeyConflict reports whether err from the insert of a CreateOrGet means that the key
// already holds a row: ON CONFLICT DO NOTHING returned no row (PostgreSQL, SQLite), or MySQL
// reported a duplicate on one of the key's indexes. Generated code calls it.
func KeyConflict(err error, dialectName string, indexes []string) bool {
	if dialectName != dialect.MySQL {
		return errors.Is(err, stdsql.ErrNoRows)
	}
	v, ok := uniq.As(err)
	if !ok || v.Constraint == "" {
		return false
	}
	for _, name := range indexes {
		if strings.EqualFold(name, v.Constraint) {
			return true
		}
	}
	return false
}

// IsMySQL reports whether an ent dialect name is MySQL's (MariaDB's included).
func IsMySQL(dialectName string) bool { return dialectName == dialect.MySQL }

// Equal compares a checked field's value in a create with the stored one. Generated
// CreateOrGet methods call it.
func Equal(a, b any) bool { return payload.Equal(a, b) }

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
