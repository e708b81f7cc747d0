package sqldb

import (
	"errors"
	"fmt"
	"strings"
)

// MaxTablePart is the longest part of a table name, in bytes: PostgreSQL's limit (it
// truncates longer names silently, so two long names could name one table).
const MaxTablePart = 63

// ErrInvalidTable is matched by every *TableError.
var ErrInvalidTable = errors.New("invalid table name")

// TableError reports a table name that CheckTable refuses, and every SQL store's
// constructor with it (its text has no package prefix: the constructor adds its own, as
// in "lease: invalid table name ..."). It matches ErrInvalidTable.
type TableError struct {
	// Table is the name refused.
	Table string
	// Reason says which part of the rule it breaks.
	Reason string
}

// Error implements error.
func (e *TableError) Error() string {
	return fmt.Sprintf("invalid table name %q: %s", e.Table, e.Reason)
}

// Is reports whether target is ErrInvalidTable.
func (e *TableError) Is(target error) bool { return target == ErrInvalidTable }

// CheckTable returns a *TableError unless name is one or two dot-separated parts, each 1
// to MaxTablePart bytes of ASCII letters, digits and underscores, not starting with a digit:
// the names every dialect reads unquoted as a table, optionally qualified by a schema.
func CheckTable(name string) error {
	parts := strings.Split(name, ".")
	if len(parts) > 2 {
		return &TableError{Table: name, Reason: "want name or schema.name, not more parts"}
	}
	for _, p := range parts {
		if reason := checkPart(p); reason != "" {
			return &TableError{Table: name, Reason: reason}
		}
	}
	return nil
}

// checkPart returns what is wrong with one part of a name, or "".
func checkPart(p string) string {
	switch {
	case p == "":
		return "empty name or schema"
	case len(p) > MaxTablePart:
		return fmt.Sprintf("part of %d bytes, want at most %d", len(p), MaxTablePart)
	case '0' <= p[0] && p[0] <= '9':
		return "starts with a digit"
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		if !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return fmt.Sprintf("byte %q at %d, want ASCII letters, digits and underscores", c, i)
		}
	}
	return ""
}
