package idgorm

import (
	"database/sql"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/idgen/idgen/runtime/sqldb"
	"gorm.io/gorm"
)

// tableID names one table of one database in the plugin's catalog caches.
type tableID struct {
	pool    *sql.DB
	dialect sqldb.Dialect
	table   string
}

func newTableID(db *gorm.DB, table string) tableID {
	id := tableID{dialect: dialectOf(db), table: table}
	if pool, err := db.DB(); err == nil {
		id.pool = pool
	}
	return id
}

// dialectOf returns the database behind db as idgorm reads its catalog: GORM's dialector
// names "postgres", "mysql" (MariaDB too) and "sqlite" (every SQLite driver's dialector);
// 0 for any other, whose catalog idgorm does not read.
func dialectOf(db *gorm.DB) sqldb.Dialect {
	switch db.Dialector.Name() {
	case "postgres":
		return sqldb.Postgres
	case "mysql":
		return sqldb.MySQL
	case "sqlite":
		return sqldb.SQLite
	}
	return 0
}

// splitTable splits a qualified table name into its schema (or database) and name.
func splitTable(table string) (schemaName, name string) {
	if i := strings.LastIndexByte(table, '.'); i >= 0 {
		return table[:i], table[i+1:]
	}
	return "", table
}

// keyColumn is a column of a table's primary key, and whether the database fills it when
// an insert leaves it out (a default, an identity, AUTO_INCREMENT, SQLite's rowid).
type keyColumn struct {
	name   string
	filled bool
}

// checkTableMap refuses db.Table(...).Create(map) without a model when a row leaves out a
// primary-key column the database does not fill: without a model the plugin cannot make
// the ID, and the database would store NULL (SQLite) or refuse it with a message that
// does not say why. The table's primary key is read from the catalog once per table.
func (p *Plugin) checkTableMap(db *gorm.DB) error {
	rows := mapRows(db.Statement.Dest)
	table := db.Statement.Table
	if len(rows) == 0 || table == "" {
		return nil
	}
	id := newTableID(db, table)
	var keys []keyColumn
	if v, ok := p.primaryKeys.Load(id); ok && id.pool != nil {
		keys = v.([]keyColumn)
	} else {
		var err error
		if keys, err = readPrimaryKey(db, id.dialect, table); err != nil {
			return fmt.Errorf("idgorm: reading the primary key of table %q: %w", table, err)
		}
		if id.pool != nil && len(keys) > 0 {
			p.primaryKeys.Store(id, keys)
		}
	}
	for _, k := range keys {
		if k.filled {
			continue
		}
		for _, row := range rows {
			var v reflect.Value
			for _, key := range row.MapKeys() {
				if strings.EqualFold(key.String(), k.name) {
					v = row.MapIndex(key)
					break
				}
			}
			if v.IsValid() && !(v.Kind() == reflect.Interface && v.IsNil()) {
				continue
			}
			return fmt.Errorf("idgorm: db.Table(%q).Create without a model: a row has no value for the primary key column %q, which the database does not fill: give one (a New... of its generated type), or create through the model, db.Model(&T{}), and the plugin fills it",
				table, k.name)
		}
	}
	return nil
}

// mapRows returns the maps with string keys a create's value holds: a map, a slice of
// them, or pointers to either; nil for anything else.
func mapRows(dest any) []reflect.Value {
	rv := reflect.ValueOf(dest)
	for rv.Kind() == reflect.Pointer && !rv.IsNil() {
		rv = rv.Elem()
	}
	var out []reflect.Value
	add := func(v reflect.Value) {
		for (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) && !v.IsNil() {
			v = v.Elem()
		}
		if v.Kind() == reflect.Map && v.Type().Key().Kind() == reflect.String {
			out = append(out, v)
		}
	}
	switch rv.Kind() {
	case reflect.Map:
		add(rv)
	case reflect.Slice, reflect.Array:
		for i := 0; i < rv.Len(); i++ {
			add(rv.Index(i))
		}
	}
	return out
}

// readPrimaryKey reads the primary-key columns of table from the catalog, on the caller's
// connection; none for a table that does not exist (the insert then fails on its own).
func readPrimaryKey(db *gorm.DB, dialect sqldb.Dialect, table string) ([]keyColumn, error) {
	schemaName, name := splitTable(table)
	var q string
	var args []any
	switch dialect {
	case sqldb.Postgres:
		q = `SELECT a.attname, a.atthasdef OR a.attidentity <> '' OR a.attgenerated <> ''
FROM pg_index x JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = ANY(x.indkey)
WHERE x.indrelid = to_regclass(?) AND x.indisprimary`
		args = []any{pgQuote(schemaName, name)}
	case sqldb.MySQL:
		q = `SELECT COLUMN_NAME, COLUMN_DEFAULT IS NOT NULL OR EXTRA LIKE '%auto_increment%' OR COALESCE(GENERATION_EXPRESSION, '') <> ''
FROM information_schema.COLUMNS
WHERE TABLE_SCHEMA = COALESCE(?, DATABASE()) AND TABLE_NAME = ? AND COLUMN_KEY = 'PRI'`
		args = []any{nullIfEmpty(schemaName), name}
	case sqldb.SQLite:
		// A sole INTEGER primary key is the rowid: SQLite fills it.
		q = `SELECT name, dflt_value IS NOT NULL OR (upper(type) = 'INTEGER' AND (SELECT count(*) FROM ` +
			sqliteTableFn("pragma_table_info", schemaName) + ` WHERE pk > 0) = 1)
FROM ` + sqliteTableFn("pragma_table_info", schemaName) + ` WHERE pk > 0`
		args = sqliteTableArgs(name, schemaName, 2)
	default:
		return nil, nil // no catalog known: the database says what it says
	}
	rows, err := db.Session(&gorm.Session{NewDB: true}).Raw(q, args...).Rows()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var keys []keyColumn
	for rows.Next() {
		var k keyColumn
		if err := rows.Scan(&k.name, &k.filled); err != nil {
			return nil, err
		}
		keys = append(keys, k)
	}
	return keys, rows.Err()
}

// timeUnit returns the precision to which column of table keeps instants, from the
// catalog (once per table): microseconds for PostgreSQL's timestamp (or its declared
// precision), DATETIME_PRECISION on MySQL and MariaDB; 0 (exact) on SQLite, which keeps
// the text the driver writes, for other types, and when the catalog cannot tell.
func (p *Plugin) timeUnit(db *gorm.DB, table, column string) time.Duration {
	id := newTableID(db, table)
	if id.dialect != sqldb.Postgres && id.dialect != sqldb.MySQL {
		return 0
	}
	var digits map[string]int
	if v, ok := p.timeDigits.Load(id); ok && id.pool != nil {
		digits = v.(map[string]int)
	} else {
		var err error
		if digits, err = readTimeDigits(db, id.dialect, table); err != nil {
			return 0
		}
		if id.pool != nil {
			p.timeDigits.Store(id, digits)
		}
	}
	n, ok := digits[strings.ToLower(column)]
	if !ok || n < 0 || n > 9 {
		return 0
	}
	u := time.Second
	for range n {
		u /= 10
	}
	return u
}

// readTimeDigits reads, for each time column of table (lowercased), the digits of a second
// it keeps.
func readTimeDigits(db *gorm.DB, dialect sqldb.Dialect, table string) (map[string]int, error) {
	schemaName, name := splitTable(table)
	var q string
	var args []any
	switch dialect {
	case sqldb.Postgres:
		// atttypmod is the declared precision, -1 for the default of 6.
		q = `SELECT a.attname, CASE WHEN a.atttypmod < 0 THEN 6 ELSE a.atttypmod END
FROM pg_attribute a
WHERE a.attrelid = to_regclass(?) AND a.attnum > 0 AND NOT a.attisdropped
	AND a.atttypid IN ('timestamp'::regtype, 'timestamptz'::regtype, 'time'::regtype, 'timetz'::regtype)`
		args = []any{pgQuote(schemaName, name)}
	case sqldb.MySQL:
		q = `SELECT COLUMN_NAME, DATETIME_PRECISION FROM information_schema.COLUMNS
WHERE TABLE_SCHEMA = COALESCE(?, DATABASE()) AND TABLE_NAME = ? AND DATA_TYPE IN ('datetime', 'timestamp', 'time')`
		args = []any{nullIfEmpty(schemaName), name}
	default:
		return nil, nil
	}
	rows, err := db.Session(&gorm.Session{NewDB: true}).Raw(q, args...).Rows()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	digits := map[string]int{}
	for rows.Next() {
		var col string
		var n sql.NullInt64
		if err := rows.Scan(&col, &n); err != nil {
			return nil, err
		}
		if n.Valid {
			digits[strings.ToLower(col)] = int(n.Int64)
		}
	}
	return digits, rows.Err()
}

// nullIfEmpty is s, or NULL when s is "" (COALESCE then takes the current database).
func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// sqliteTableFn calls a SQLite table-valued pragma function on a table of the main
// database, or of an attached one: fn(?) or fn(?, ?).
func sqliteTableFn(fn, schemaName string) string {
	if schemaName == "" {
		return fn + "(?)"
	}
	return fn + "(?, ?)"
}

// sqliteTableArgs repeats the arguments of sqliteTableFn n times.
func sqliteTableArgs(name, schemaName string, n int) []any {
	var args []any
	for range n {
		args = append(args, name)
		if schemaName != "" {
			args = append(args, schemaName)
		}
	}
	return args
}
