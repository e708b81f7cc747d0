package uniq

import (
	"reflect"
	"strings"

	"github.com/idgen/idgen/runtime/sqldb"
)

// uniqueViolation is the SQLSTATE of a unique-key violation.
const uniqueViolation = "23505"

// pgconnPath is the package of pgx's *PgError.
const pgconnPath = "github.com/jackc/pgx/v5/pgconn"

// detectPostgres recognises, without importing either driver, pgx's *pgconn.PgError (its
// SQLState method and its fields ConstraintName, TableName and Detail) and lib/pq's
// *pq.Error by its method SQLState (recent releases; older ones without it are not
// recognised). The constraint, table and detail of pq's come from its Get method where it
// has one, or else from its exported fields Constraint, Table and Detail, as the newest
// releases dropped Get.
func detectPostgres(err error) *Violation {
	s, ok := err.(interface{ SQLState() string })
	if !ok || s.SQLState() != uniqueViolation {
		return nil
	}
	if t := reflect.TypeOf(err); t.Kind() == reflect.Pointer && t.Elem().PkgPath() == pgconnPath && t.Elem().Name() == "PgError" {
		return postgresViolation(stringField(err, "ConstraintName"), stringField(err, "TableName"), stringField(err, "Detail"))
	}
	if g, ok := err.(interface{ Get(byte) string }); ok {
		return postgresViolation(g.Get('n'), g.Get('t'), g.Get('D'))
	}
	return postgresViolation(stringField(err, "Constraint"), stringField(err, "Table"), stringField(err, "Detail"))
}

func postgresViolation(constraint, table, detail string) *Violation {
	return &Violation{
		Driver:     sqldb.Postgres,
		Constraint: constraint,
		Table:      table,
		Columns:    parsePostgresDetail(detail),
	}
}

// stringField returns the exported string field name of the struct err is or points to,
// or "".
func stringField(err error, name string) string {
	v := reflect.ValueOf(err)
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return ""
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return ""
	}
	f, ok := v.Type().FieldByName(name)
	if !ok || !f.IsExported() || f.Type.Kind() != reflect.String {
		return ""
	}
	return v.FieldByIndex(f.Index).String()
}

// parsePostgresDetail returns the columns named by a unique violation's detail in its
// English shape, `Key (a, b)=(1, x) already exists.`, and nil for any other text: a
// translated detail, or a key on expressions, whose parts are not columns. Quoted
// identifiers are unquoted.
func parsePostgresDetail(detail string) []string {
	rest, ok := strings.CutPrefix(detail, "Key (")
	if !ok || !strings.HasSuffix(detail, ") already exists.") {
		return nil
	}
	var cols []string
	for {
		col, after, ok := postgresIdent(rest)
		if !ok {
			return nil
		}
		cols = append(cols, col)
		if rest, ok = strings.CutPrefix(after, ", "); ok {
			continue
		}
		if strings.HasPrefix(after, ")=(") {
			return cols
		}
		return nil
	}
}

// postgresIdent reads one identifier as PostgreSQL's quote_identifier writes it: bare
// lowercase letters, digits and underscores not starting with a digit, or double-quoted
// with "" for ".
func postgresIdent(s string) (ident, rest string, ok bool) {
	if strings.HasPrefix(s, `"`) {
		var b strings.Builder
		for i := 1; i < len(s); i++ {
			if s[i] != '"' {
				b.WriteByte(s[i])
				continue
			}
			if i+1 < len(s) && s[i+1] == '"' {
				b.WriteByte('"')
				i++
				continue
			}
			if b.Len() == 0 {
				return "", s, false
			}
			return b.String(), s[i+1:], true
		}
		return "", s, false
	}
	i := 0
	for i < len(s) {
		c := s[i]
		if 'a' <= c && c <= 'z' || c == '_' || i > 0 && '0' <= c && c <= '9' {
			i++
			continue
		}
		break
	}
	if i == 0 {
		return "", s, false
	}
	return s[:i], s[i:], true
}
