package idgorm

import (
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/idgen/idgen/runtime/sqldb"
	"gorm.io/gorm"
)

var (
	// ErrNoUniqueKey is matched by every *NoUniqueKeyError.
	ErrNoUniqueKey = errors.New("idgorm: no unique index on exactly the key's columns")
	// ErrNoTable is matched by every *NoTableError.
	ErrNoTable = errors.New("idgorm: the model's table does not exist")
)

// NoUniqueKeyError reports that the database has no unique index or constraint that
// CreateOrGet can rely on: none whose columns are exactly the key's columns (in any order),
// or, with Index(...), not that one. Nothing was inserted.
type NoUniqueKeyError struct {
	Model   string   // the model's Go type name
	Table   string   // its table
	Columns []string // the key's columns, in the order given to Key
	Index   string   // the name given with Index(...), or ""
	// Matching names the unique indexes that are on exactly the key's columns, when Index
	// named another one.
	Matching []string
	// Err is the database's refusal when it, not the catalog, said so: the index was
	// dropped, or the schema changed, after the lookup was cached.
	Err error

	seen []string // unique indexes on some of the columns that do not count, and why
}

// Error implements error.
func (e *NoUniqueKeyError) Error() string {
	cols := "(" + strings.Join(e.Columns, ", ") + ")"
	var b strings.Builder
	fmt.Fprintf(&b, "idgorm: model %s, key %s: ", e.Model, cols)
	if e.Index != "" {
		fmt.Fprintf(&b, "table %q has no unique index %q on exactly %s", e.Table, e.Index, cols)
	} else {
		fmt.Fprintf(&b, "table %q has no unique index on exactly %s", e.Table, cols)
	}
	if len(e.seen) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(e.seen, "; "))
	}
	if e.Err != nil {
		fmt.Fprintf(&b, " (the database refused the insert: %v)", e.Err)
	}
	switch {
	case e.Index != "" && len(e.Matching) > 0:
		fmt.Fprintf(&b, ": name %s in Index(...), or leave Index out", quoteAll(e.Matching))
	case e.Index != "":
		fmt.Fprintf(&b, ": create a unique index %q on exactly %s", e.Index, cols)
	default:
		fmt.Fprintf(&b, ": create a unique index on exactly %s", cols)
	}
	return b.String()
}

// Is reports whether target is ErrNoUniqueKey.
func (e *NoUniqueKeyError) Is(target error) bool { return target == ErrNoUniqueKey }

// Unwrap returns the database's error, if any.
func (e *NoUniqueKeyError) Unwrap() error { return e.Err }

// NoTableError reports that the model's table does not exist (yet): CreateOrGet found no
// table to look up the key's unique index in, and inserted nothing.
type NoTableError struct {
	Model string // the model's Go type name
	Table string // the table, as the insert would name it
}

// Error implements error.
func (e *NoTableError) Error() string {
	return fmt.Sprintf("idgorm: model %s: table %q does not exist: run the migration that creates it and its unique key", e.Model, e.Table)
}

// Is reports whether target is ErrNoTable.
func (e *NoTableError) Is(target error) bool { return target == ErrNoTable }

// keyID names one cache entry of Plugin.keys. The pool stands for the database: a
// *sql.DB connects to one database (and on PostgreSQL, a search_path that differs by
// session is caught by the insert itself, see CreateOrGet).
type keyID struct {
	pool    *sql.DB
	dialect sqldb.Dialect
	table   string
	columns string // the key's columns, sorted, joined by NUL
}

// uniqueKey is what the catalog said about a key: the unique indexes on exactly its
// columns, one or more. Only found keys are cached, so an index a migration adds later is
// found by the next call.
type uniqueKey struct {
	names []string
}

// catalogIndex is a unique index (or the primary key) as a catalog describes it.
type catalogIndex struct {
	name    string
	columns []string // key columns, in index order; "an expression" for one
	// unusable says why the index cannot be the key even on the right columns (partial,
	// deferrable, prefix, invalid), or "".
	unusable string
}

// findKey returns the unique key on exactly columns of table, from the cache or else from
// the database's catalog, with one statement on the caller's connection.
func (p *Plugin) findKey(db *gorm.DB, model, table string, columns []string, index string) (keyID, *uniqueKey, error) {
	dialect := dialectOf(db)
	id := keyID{dialect: dialect, table: table, columns: strings.Join(sortedCopy(columns), "\x00")}
	if pool, err := db.DB(); err == nil {
		id.pool = pool
	}
	same := strings.EqualFold
	if dialect == sqldb.Postgres {
		// Quoted identifiers: GORM quotes every name, so case counts.
		same = func(a, b string) bool { return a == b }
	}
	if id.pool != nil {
		if v, ok := p.keys.Load(id); ok {
			k := v.(*uniqueKey)
			if index == "" || slices.ContainsFunc(k.names, func(n string) bool { return same(n, index) }) {
				return id, k, nil
			}
			// Index names one not seen at the lookup: look again, it may be new.
		}
	}
	indexes, exists, err := readCatalog(db, dialect, table)
	if err != nil {
		return id, nil, fmt.Errorf("idgorm: model %s: reading the unique indexes of table %q: %w", model, table, err)
	}
	if !exists {
		return id, nil, &NoTableError{Model: model, Table: table}
	}
	k := &uniqueKey{}
	var seen []string
	for _, ix := range indexes {
		exact := sameSet(ix.columns, columns, same)
		if exact && ix.unusable == "" {
			k.names = append(k.names, ix.name)
			continue
		}
		if !exact && !slices.ContainsFunc(ix.columns, func(c string) bool {
			return slices.ContainsFunc(columns, func(kc string) bool { return same(c, kc) })
		}) {
			continue
		}
		what := fmt.Sprintf("unique index %q", ix.name)
		if ix.name == sqlitePrimaryKey {
			what = "the primary key"
		}
		desc := fmt.Sprintf("%s is on (%s)", what, strings.Join(ix.columns, ", "))
		if ix.unusable != "" {
			desc += " but " + ix.unusable
		}
		seen = append(seen, desc)
	}
	if len(k.names) == 0 || index != "" && !slices.ContainsFunc(k.names, func(n string) bool { return same(n, index) }) {
		e := &NoUniqueKeyError{Model: model, Table: table, Columns: columns, Index: index, seen: seen}
		if index != "" {
			e.Matching = k.names
		}
		return id, nil, e
	}
	if id.pool != nil {
		// The newest answer wins: it may name an index (given with Index) the cached one
		// predates. Two callers racing here both store what the catalog said.
		p.keys.Store(id, k)
	}
	return id, k, nil
}

// forget drops a cached key the database no longer has.
func (p *Plugin) forget(id keyID) { p.keys.Delete(id) }

// readCatalog lists the unique indexes of table, and whether the table exists, in one
// query on the caller's connection (its transaction, if any), so it sees the tables the
// INSERT will see: those made earlier in the transaction, and on PostgreSQL those its
// search_path leads to.
func readCatalog(db *gorm.DB, dialect sqldb.Dialect, table string) (indexes []catalogIndex, exists bool, err error) {
	schemaName, name := "", table
	if i := strings.LastIndexByte(table, '.'); i >= 0 {
		schemaName, name = table[:i], table[i+1:]
	}
	var q string
	var args []any
	switch dialect {
	case sqldb.Postgres:
		// to_regclass resolves the name as the INSERT does, through the search_path; every
		// unique or primary-key constraint has an index of its name in pg_index. Only key
		// columns count (not INCLUDE ones); an expression has attnum 0 and no attname.
		q = `SELECT c.oid IS NOT NULL, ic.relname, x.indpred IS NOT NULL, x.indexprs IS NOT NULL,
	x.indimmediate, x.indisvalid, a.attname
FROM (SELECT to_regclass(?) AS oid) c
LEFT JOIN pg_index x ON x.indrelid = c.oid AND x.indisunique
LEFT JOIN pg_class ic ON ic.oid = x.indexrelid
LEFT JOIN LATERAL unnest(x.indkey::int2[]) WITH ORDINALITY AS k(attnum, n) ON k.n <= x.indnkeyatts
LEFT JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.attnum
ORDER BY ic.relname, k.n`
		args = []any{pgQuote(schemaName, name)}
	case sqldb.MySQL:
		q = `SELECT 1, s.INDEX_NAME, s.SUB_PART IS NOT NULL, s.COLUMN_NAME
FROM information_schema.TABLES t
LEFT JOIN information_schema.STATISTICS s
	ON s.TABLE_SCHEMA = t.TABLE_SCHEMA AND s.TABLE_NAME = t.TABLE_NAME AND s.NON_UNIQUE = 0
WHERE t.TABLE_SCHEMA = COALESCE(?, DATABASE()) AND t.TABLE_NAME = ?
ORDER BY s.INDEX_NAME, s.SEQ_IN_INDEX`
		var sch any
		if schemaName != "" {
			sch = schemaName
		}
		args = []any{sch, name}
	case sqldb.SQLite:
		// table_info has a row per column of an existing table and marks the primary key,
		// which index_list lacks when it is the rowid; index_info lists key columns, with
		// no name for an expression.
		from := func(fn, arg string) string {
			if schemaName == "" {
				return fn + "(" + arg + ")"
			}
			return fn + "(" + arg + ", ?)"
		}
		q = `SELECT '', 0, ti.name, ti.pk FROM ` + from("pragma_table_info", "?") + ` ti
UNION ALL
SELECT il.name, il.partial, ii.name, -1 FROM ` + from("pragma_index_list", "?") + ` il, ` + from("pragma_index_info", "il.name") + ` ii
WHERE il."unique"`
		if schemaName == "" {
			args = []any{name, name}
		} else {
			args = []any{name, schemaName, name, schemaName, schemaName}
		}
	default:
		return nil, false, fmt.Errorf("idgorm: CreateOrGet does not know how to find unique indexes on %q", db.Dialector.Name())
	}
	rows, err := db.Session(&gorm.Session{NewDB: true}).Raw(q, args...).Rows()
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	byName := map[string]*catalogIndex{}
	var order []string
	add := func(name, column, unusable string) {
		ix := byName[name]
		if ix == nil {
			ix = &catalogIndex{name: name}
			byName[name] = ix
			order = append(order, name)
		}
		ix.columns = append(ix.columns, column)
		if ix.unusable == "" {
			ix.unusable = unusable
		}
	}
	for rows.Next() {
		switch dialect {
		case sqldb.Postgres:
			var present bool
			var name, column sql.NullString
			var partial, expr, immediate, valid sql.NullBool
			if err := rows.Scan(&present, &name, &partial, &expr, &immediate, &valid, &column); err != nil {
				return nil, false, err
			}
			exists = present
			if !name.Valid {
				continue
			}
			why := ""
			switch {
			case partial.Bool:
				why = "partial: ON CONFLICT cannot use it"
			case !immediate.Bool:
				why = "deferrable: ON CONFLICT cannot use it"
			case !valid.Bool:
				why = "not valid: a CREATE INDEX CONCURRENTLY failed"
			}
			if expr.Bool && !column.Valid {
				column.String = "an expression"
			}
			add(name.String, column.String, why)
		case sqldb.MySQL:
			var present int
			var name, column sql.NullString
			var prefix sql.NullBool
			if err := rows.Scan(&present, &name, &prefix, &column); err != nil {
				return nil, false, err
			}
			exists = true
			if !name.Valid {
				continue
			}
			why := ""
			if prefix.Bool {
				why = "on a prefix of a column: values that differ after it conflict"
			}
			if !column.Valid {
				column.String = "an expression"
			}
			add(name.String, column.String, why)
		case sqldb.SQLite:
			var name string
			var partial, pk int64
			var column sql.NullString
			if err := rows.Scan(&name, &partial, &column, &pk); err != nil {
				return nil, false, err
			}
			if !column.Valid {
				column.String = "an expression"
			}
			switch {
			case pk >= 0: // a column of the table
				exists = true
				if pk > 0 {
					add(sqlitePrimaryKey, column.String, "")
				}
			default:
				why := ""
				if partial != 0 {
					why = "partial: ON CONFLICT cannot use it"
				}
				add(name, column.String, why)
			}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, false, err
	}
	indexes = make([]catalogIndex, len(order))
	for i, n := range order {
		indexes[i] = *byName[n]
	}
	return indexes, exists, nil
}

// sqlitePrimaryKey names a SQLite primary key, which has no index of its own when it is
// the rowid.
const sqlitePrimaryKey = "PRIMARY KEY"

// pgQuote quotes a (schema-qualified) table name for to_regclass as GORM quotes it in the
// INSERT, so case and odd characters resolve to the same table.
func pgQuote(schemaName, table string) string {
	q := func(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
	if schemaName == "" {
		return q(table)
	}
	return q(schemaName) + "." + q(table)
}

// sameSet reports whether a and b hold the same names, each once, in any order.
func sameSet(a, b []string, same func(string, string) bool) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		n := 0
		for _, y := range b {
			if same(x, y) {
				n++
			}
		}
		if n != 1 {
			return false
		}
	}
	return true
}

func sortedCopy(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, " or ")
}
