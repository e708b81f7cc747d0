package uniq

import (
	"reflect"
	"strings"
)

// SQLite extended result codes.
const (
	sqliteConstraintUnique     = 2067 // SQLITE_CONSTRAINT_UNIQUE
	sqliteConstraintPrimaryKey = 1555 // SQLITE_CONSTRAINT_PRIMARYKEY
)

// mattnPath is the package of mattn/go-sqlite3's Error, recognised without importing it
// (it needs cgo).
const mattnPath = "github.com/mattn/go-sqlite3"

// detectSQLite recognises the SQLite drivers without importing them: modernc.org/sqlite
// and glebarez/go-sqlite by a Code() int method on a type from a package whose path
// contains "sqlite" (other errors have Code methods meaning other things), and
// mattn/go-sqlite3 by its ExtendedCode field. All three report extended codes.
func detectSQLite(err error) *Violation {
	code, ok := sqliteCode(err, mattnPath)
	if !ok || code != sqliteConstraintUnique && code != sqliteConstraintPrimaryKey {
		return nil
	}
	v := &Violation{Driver: SQLite, PrimaryKey: code == sqliteConstraintPrimaryKey}
	v.Table, v.Columns, v.Constraint = parseSQLiteMessage(err.Error())
	return v
}

// sqliteCode returns the extended result code of a SQLite driver's error. fieldPkg is the
// package whose error type carries the code in a field named ExtendedCode, a parameter so
// that tests can exercise that branch without the package.
func sqliteCode(err error, fieldPkg string) (int, bool) {
	t := reflect.TypeOf(err)
	if t == nil {
		return 0, false
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	pkg := t.PkgPath()
	if pkg == fieldPkg {
		return extendedCodeField(err)
	}
	if c, ok := err.(interface{ Code() int }); ok && strings.Contains(pkg, "sqlite") {
		return c.Code(), true
	}
	return 0, false
}

// extendedCodeField returns the integer field ExtendedCode of the struct err is or points
// to.
func extendedCodeField(err error) (int, bool) {
	v := reflect.ValueOf(err)
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return 0, false
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return 0, false
	}
	f := v.FieldByName("ExtendedCode")
	if !f.IsValid() || !f.CanInt() {
		return 0, false
	}
	return int(f.Int()), true
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
