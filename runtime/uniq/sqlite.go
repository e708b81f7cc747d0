package uniq

import (
	"strings"

	"github.com/idgen/idgen/runtime/internal/sqlerr"
	"github.com/idgen/idgen/runtime/sqldb"
)

// SQLite extended result codes.
const (
	sqliteConstraintUnique     = 2067 // SQLITE_CONSTRAINT_UNIQUE
	sqliteConstraintPrimaryKey = 1555 // SQLITE_CONSTRAINT_PRIMARYKEY
)

// detectSQLite recognises the SQLite drivers without importing them (sqlerr.SQLiteCode:
// modernc.org/sqlite, glebarez/go-sqlite and mattn/go-sqlite3, all with extended codes).
func detectSQLite(err error) *Violation {
	code, ok := sqlerr.SQLiteCode(err)
	if !ok || code != sqliteConstraintUnique && code != sqliteConstraintPrimaryKey {
		return nil
	}
	v := &Violation{Driver: sqldb.SQLite, PrimaryKey: code == sqliteConstraintPrimaryKey}
	v.Table, v.Columns, v.Constraint = parseSQLiteMessage(err.Error())
	return v
}

// parseSQLiteMessage reads the names in `UNIQUE constraint failed: t.a, t.b`, which SQLite
// writes in English only; drivers may add text around it, like modernc's "constraint
// failed: " before and " (2067)" after. For an index on expressions SQLite writes
// `UNIQUE constraint failed: index 'name'` instead, which gives the index name.
func parseSQLiteMessage(msg string) (table string, columns []string, index string) {
	const marker = "UNIQUE constraint failed: "
	i := strings.Index(msg, marker)
	if i < 0 {
		return "", nil, ""
	}
	rest := msg[i+len(marker):]
	if j := strings.LastIndex(rest, " ("); j >= 0 && strings.HasSuffix(rest, ")") {
		rest = rest[:j]
	}
	if name, ok := strings.CutPrefix(rest, "index '"); ok {
		if name, ok = strings.CutSuffix(name, "'"); ok && name != "" {
			return "", nil, name
		}
		return "", nil, ""
	}
	for part := range strings.SplitSeq(rest, ", ") {
		t, c, ok := strings.Cut(part, ".")
		if !ok || t == "" || c == "" || table != "" && t != table {
			return "", nil, ""
		}
		table = t
		columns = append(columns, c)
	}
	return table, columns, ""
}
