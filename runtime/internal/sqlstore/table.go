package sqlstore

import (
	"errors"
	"fmt"
	"strings"
)

// MaxPart is the longest part of a table name, in bytes: PostgreSQL's limit.
const MaxPart = 63

// ErrInvalidTable is matched by every *TableError.
var ErrInvalidTable = errors.New("invalid table name")

// TableError reports a table name that CheckTable refuses. It matches ErrInvalidTable.
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
// to MaxPart bytes of ASCII letters, digits and underscores, not starting with a digit:
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
	case len(p) > MaxPart:
		return fmt.Sprintf("part of %d bytes, want at most %d", len(p), MaxPart)
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

// HostileTables returns table names CheckTable must refuse, for the tests of every package
// that takes a table name: injections, quoting, too many parts, too long, non-ASCII.
func HostileTables() []string {
	return []string{
		"",
		"t (x int); DROP TABLE victim; CREATE TABLE t2",
		"idgen_lease; DROP TABLE x",
		"t;",
		"t --",
		"t/*c*/",
		"t' OR '1'='1",
		`"t"`,
		"`t`",
		"[t]",
		"t x",
		"t\x00",
		"t\n",
		"a-b",
		"a.b.c",
		"a..b",
		".t",
		"t.",
		"1t",
		"app.1t",
		"$1",
		"t?",
		"é",
		"tа", // Cyrillic a
		strings.Repeat("a", MaxPart+1),
		"app." + strings.Repeat("b", MaxPart+1),
		strings.Repeat("a", 200),
	}
}

// GoodTables returns table names CheckTable accepts, for the same tests.
func GoodTables() []string {
	return []string{
		"idgen_lease",
		"t",
		"_t",
		"T2",
		"app.idgen_segment",
		"App_1.T_2",
		strings.Repeat("a", MaxPart),
		strings.Repeat("s", MaxPart) + "." + strings.Repeat("t", MaxPart),
	}
}
