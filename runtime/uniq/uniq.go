package uniq

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/idgen/idgen/runtime/internal/sqlerr"
	"github.com/idgen/idgen/runtime/sqldb"
)

// Violation describes a unique-key violation as far as the driver tells it.
type Violation struct {
	Driver sqldb.Dialect // sqldb.Postgres, sqldb.MySQL (MariaDB too) or sqldb.SQLite
	// Constraint is the constraint or index name when the driver gives it
	// ("users_email_key", "idx_users_email", "PRIMARY"). SQLite names only indexes on
	// expressions; for plain columns it is "".
	Constraint string
	Table      string   // the table, when known
	Columns    []string // the key's columns in index order, when known
	// PrimaryKey reports that the driver said the violated key is the primary key (SQLite
	// code 1555, MySQL key PRIMARY). It is false when unknown: PostgreSQL does not say, and
	// a constraint name ending in _pkey proves nothing.
	PrimaryKey bool
}

// ErrMismatch is matched by every *MismatchError.
var ErrMismatch = errors.New("uniq: the key was used with different values")

// MismatchError reports an idempotent create whose key already holds a row with other
// values in the fields it checks: the same request key with another payload. The GORM
// and ent plugins' CreateOrGet return it (as idgorm.MismatchError and idgent.MismatchError,
// aliases of this type) with the existing row loaded.
type MismatchError struct {
	Model  string   // the model or ent schema
	Key    []string // the key's columns
	Fields []string // the checked fields that differ
}

// Error implements error.
func (e *MismatchError) Error() string {
	return fmt.Sprintf("uniq: %s key (%s) was used with different %s", e.Model, strings.Join(e.Key, ", "), strings.Join(e.Fields, ", "))
}

// Is reports whether target is ErrMismatch.
func (e *MismatchError) Is(target error) bool { return target == ErrMismatch }

// ErrDuplicate is matched by every *DuplicateError.
var ErrDuplicate = errors.New("uniq: duplicate key")

// DuplicateError reports a unique-key violation. It matches ErrDuplicate and unwraps to
// the driver's error.
type DuplicateError struct {
	Violation
	Err error // the driver's error, possibly wrapped
}

// Error implements error.
func (e *DuplicateError) Error() string {
	var b strings.Builder
	b.WriteString("uniq: duplicate key: ")
	if e.PrimaryKey {
		b.WriteString("primary key")
	} else {
		b.WriteString("unique constraint")
	}
	if e.Constraint != "" {
		fmt.Fprintf(&b, " %q", e.Constraint)
	}
	if e.Table != "" {
		fmt.Fprintf(&b, " on table %q", e.Table)
	}
	if len(e.Columns) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(e.Columns, ", "))
	}
	if e.Constraint == "" && e.Table == "" && len(e.Columns) == 0 && e.Err != nil {
		// Nothing named: the driver's text is the only clue left for a human.
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	return b.String()
}

// Is reports whether target is ErrDuplicate.
func (e *DuplicateError) Is(target error) bool { return target == ErrDuplicate }

// Unwrap returns the driver's error.
func (e *DuplicateError) Unwrap() error { return e.Err }

// As finds a unique-key violation anywhere in err's chain, including one already reported
// by a *DuplicateError, and returns a copy of its description.
func As(err error) (*Violation, bool) {
	var found *Violation
	for e := range sqlerr.Chain(err) {
		if found = detect(e); found != nil {
			break
		}
	}
	if found == nil {
		return nil, false
	}
	found.Columns = slices.Clone(found.Columns)
	return found, true
}

// Is reports whether err is or wraps a unique-key violation or ErrDuplicate.
func Is(err error) bool {
	if errors.Is(err, ErrDuplicate) {
		return true
	}
	_, ok := As(err)
	return ok
}

// Wrap returns a *DuplicateError wrapping err if err is or wraps a unique-key violation,
// and err unchanged otherwise (nil stays nil, and an error that already wraps a
// *DuplicateError is not wrapped twice).
func Wrap(err error) error {
	if err == nil {
		return nil
	}
	var dup *DuplicateError
	if errors.As(err, &dup) {
		return err
	}
	v, ok := As(err)
	if !ok {
		return err
	}
	return &DuplicateError{Violation: *v, Err: err}
}

// detect describes err itself, not what it wraps, if it is a unique-key violation.
func detect(err error) *Violation {
	if d, ok := err.(*DuplicateError); ok {
		v := d.Violation
		return &v
	}
	if v := detectPostgres(err); v != nil {
		return v
	}
	if v := detectMySQL(err); v != nil {
		return v
	}
	return detectSQLite(err)
}
