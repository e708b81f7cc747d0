package idgorm

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
	"gorm.io/gorm/schema"

	"github.com/idgen/idgen/runtime/sqldb"
	"github.com/idgen/idgen/runtime/uniq"
)

var (
	// ErrDeleted is returned, with the row loaded, when the key belongs to a soft-deleted row.
	ErrDeleted = errors.New("idgorm: the key belongs to a deleted row")
	// ErrMismatch is matched by every *MismatchError (it is uniq.ErrMismatch).
	ErrMismatch = uniq.ErrMismatch
	// errHit stops a create whose key already exists before its after-create steps.
	errHit = errors.New("idgorm: key exists")
)

// MismatchError reports a key reused with different values in the fields CreateOrGet was
// told to check: the same request key with another payload; Model is the model's name.
// The existing row is loaded. It is uniq.MismatchError, the type the ent plugin returns
// too.
type MismatchError = uniq.MismatchError

// Option configures CreateOrGet.
type Option func(*options)

type options struct {
	key, check []string
	index      string
}

// Key names the unique key that makes a create idempotent: field names or column names, in
// any order. Required. The database must have a unique index or constraint on exactly
// these columns (see CreateOrGet).
func Key(fields ...string) Option { return func(o *options) { o.key = append(o.key, fields...) } }

// Check names fields that must hold the same values in the existing row as in the
// caller's struct; a difference is a *MismatchError.
func Check(fields ...string) Option { return func(o *options) { o.check = append(o.check, fields...) } }

// Index names the key's unique index. It is optional: CreateOrGet finds the unique indexes
// on exactly the key's columns in the database. When given, that lookup must find this one
// among them, or CreateOrGet returns a *NoUniqueKeyError: a check that the migration made
// the index the code relies on.
func Index(name string) Option { return func(o *options) { o.index = name } }

const idempotentKey = "idgen:idempotent"

// CreateOrGet inserts value, a pointer to a model, unless its key already holds a row: then
// it loads that row into value and returns created=false. See the package documentation.
//
// The key must have a unique index or constraint in the database on exactly its columns;
// the first call for a table and key looks it up in the catalog, and later calls reuse
// what it found. Without one CreateOrGet inserts nothing and returns a *NoUniqueKeyError
// naming the index to create, or a *NoTableError when the table does not exist.
func CreateOrGet(db *gorm.DB, value any, opts ...Option) (created bool, err error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	if len(o.key) == 0 {
		return false, errors.New("idgorm: CreateOrGet needs Key(...)")
	}
	p, ok := db.Config.Plugins[Name].(*Plugin)
	if !ok {
		return false, errors.New("idgorm: CreateOrGet needs the plugin: db.Use(idgorm.New(...))")
	}
	rv := reflect.ValueOf(value)
	if rv.Kind() != reflect.Pointer || rv.Elem().Kind() != reflect.Struct {
		return false, fmt.Errorf("idgorm: CreateOrGet takes a pointer to a struct, not %T", value)
	}
	s, err := parseSchema(db, value)
	if err != nil {
		return false, err
	}
	keyFields, err := lookup(s, o.key)
	if err != nil {
		return false, err
	}
	checkFields, err := lookup(s, o.check)
	if err != nil {
		return false, err
	}
	columns := make([]string, len(keyFields))
	for i, f := range keyFields {
		columns[i] = f.DBName
	}
	table := s.Table
	if db.Statement.Table != "" {
		table = db.Statement.Table // db.Table(...): the insert goes there
	}
	id, k, err := p.findKey(db, s.Name, table, columns, o.index)
	if err != nil {
		return false, err
	}
	ctx := db.Statement.Context
	want := make([]any, len(checkFields))
	for i, f := range checkFields {
		want[i], _ = f.ValueOf(ctx, rv)
	}

	// Insert with GORM's error translation off, so the driver's error says which key.
	tx := db.Session(&gorm.Session{})
	cfg := *tx.Config
	cfg.TranslateError = false
	tx.Config = &cfg
	tx = tx.Set(idempotentKey, true)
	dialect := dialectOf(db)
	if dialect != sqldb.MySQL {
		cols := make([]clause.Column, len(keyFields))
		for i, f := range keyFields {
			cols[i] = clause.Column{Name: f.DBName}
		}
		tx = tx.Clauses(clause.OnConflict{Columns: cols, DoNothing: true})
	}
	err = tx.Create(value).Error
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, errHit):
		// ON CONFLICT DO NOTHING: the key holds a row.
	case noConflictTarget(err):
		// The cached index is gone, or this session's search_path leads to another table:
		// the database refused the statement, so nothing was inserted.
		p.forget(id)
		return false, &NoUniqueKeyError{Model: s.Name, Table: table, Columns: columns, Index: o.index, Err: err}
	default:
		v, ok := uniq.As(err)
		if !ok || dialect != sqldb.MySQL || !k.recognises(table, v) {
			return false, translate(db, nameSQLiteDuplicate(db, table, uniq.Wrap(err)))
		}
	}
	return false, p.load(db, s, table, value, keyFields, checkFields, want, o.key, dialect)
}

// nameSQLiteDuplicate names the unique index of a SQLite duplicate, whose message names
// only the columns: the one on exactly those columns in the catalog of table.
func nameSQLiteDuplicate(db *gorm.DB, table string, err error) error {
	var dup *uniq.DuplicateError
	if !errors.As(err, &dup) || dup.Driver != sqldb.SQLite || dup.Constraint != "" || len(dup.Columns) == 0 {
		return err
	}
	indexes, _, cerr := readCatalog(db, sqldb.SQLite, table)
	if cerr != nil {
		return err
	}
	for _, ix := range indexes {
		if ix.name != sqlitePrimaryKey && sameSet(ix.columns, dup.Columns, strings.EqualFold) {
			dup.Constraint = ix.name
			break
		}
	}
	return err
}

// isTime reports whether f holds an instant (time.Time, a pointer to one, sql.NullTime).
func isTime(f *schema.Field) bool {
	if f.DataType == schema.Time {
		return true
	}
	t := f.FieldType
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t == reflect.TypeFor[time.Time]()
}

// load reads the row holding the key into value and checks the payload.
func (p *Plugin) load(db *gorm.DB, s *schema.Schema, table string, value any, keyFields, checkFields []*schema.Field, want []any, key []string, dialect sqldb.Dialect) error {
	ctx := db.Statement.Context
	rv := reflect.ValueOf(value)
	fresh := reflect.New(s.ModelType)
	find := func(unscoped bool) error {
		q := db.Session(&gorm.Session{NewDB: true}).Model(fresh.Interface())
		if unscoped {
			q = q.Unscoped()
		}
		for _, f := range keyFields {
			v, _ := f.ValueOf(ctx, rv)
			q = q.Where(clause.Eq{Column: clause.Column{Table: clause.CurrentTable, Name: f.DBName}, Value: v})
		}
		if dialect == sqldb.MySQL {
			// A locking read sees the latest committed row, not the REPEATABLE READ
			// snapshot; LOCK IN SHARE MODE is the spelling MySQL and MariaDB both accept.
			q = q.Clauses(shareLock{})
		}
		return q.Take(fresh.Interface()).Error
	}
	deleted := false
	err := find(false)
	if errors.Is(err, gorm.ErrRecordNotFound) && s.LookUpField("DeletedAt") != nil {
		err = find(true)
		deleted = err == nil
	}
	if err != nil {
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return fmt.Errorf("idgorm: key (%s) is taken but its row cannot be read: %w", strings.Join(key, ", "), err)
		}
		return fmt.Errorf("idgorm: reading the row of key (%s): %w", strings.Join(key, ", "), err)
	}
	rv.Elem().Set(fresh.Elem())
	if deleted {
		return ErrDeleted
	}
	var differ []string
	for i, f := range checkFields {
		got, _ := f.ValueOf(ctx, rv)
		if uniq.Same(want[i], got) {
			continue
		}
		// The database kept the instant to its column's precision: compare at that.
		if isTime(f) {
			if unit := p.timeUnit(db, table, f.DBName); unit > 0 && uniq.SameAt(want[i], got, unit) {
				continue
			}
		}
		differ = append(differ, f.Name)
	}
	if len(differ) > 0 {
		return &MismatchError{Model: s.Name, Key: key, Fields: differ}
	}
	return nil
}

// afterInsert is the create callback that stops an idempotent create whose insert did
// nothing (ON CONFLICT DO NOTHING), so AfterCreate hooks and association saves do not run.
func afterInsert(db *gorm.DB) {
	if db.Error != nil {
		return
	}
	if v, ok := db.Get(idempotentKey); ok && v == true && db.RowsAffected == 0 {
		db.AddError(errHit)
	}
}

// recognises reports whether a MySQL duplicate-key violation is on one of the key's unique
// indexes. MySQL 8 names the table too; MariaDB only the index.
func (k *uniqueKey) recognises(table string, v *uniq.Violation) bool {
	if v.Constraint == "" {
		return false
	}
	if v.Table != "" {
		if i := strings.LastIndexByte(table, '.'); i >= 0 {
			table = table[i+1:]
		}
		if !strings.EqualFold(v.Table, table) {
			return false
		}
	}
	return slices.ContainsFunc(k.names, func(n string) bool { return strings.EqualFold(n, v.Constraint) })
}

// noConflictTarget reports whether err is the database refusing ON CONFLICT (key) because
// no unique index is on exactly those columns: PostgreSQL's SQLSTATE 42P10, SQLite's
// message (its code is the generic SQLITE_ERROR).
func noConflictTarget(err error) bool {
	var pg interface{ SQLState() string }
	if errors.As(err, &pg) && pg.SQLState() == "42P10" {
		return true
	}
	return strings.Contains(err.Error(), "ON CONFLICT clause does not match any PRIMARY KEY or UNIQUE constraint")
}

func lookup(s *schema.Schema, names []string) ([]*schema.Field, error) {
	out := make([]*schema.Field, len(names))
	for i, n := range names {
		f := s.LookUpField(n)
		if f == nil {
			return nil, fmt.Errorf("idgorm: model %s has no field or column %q", s.Name, n)
		}
		out[i] = f
	}
	return out, nil
}

// translate applies GORM's error translation when the caller's config asks for it,
// keeping the typed duplicate error behind it.
func translate(db *gorm.DB, err error) error {
	if !db.Config.TranslateError {
		return err
	}
	if t, ok := db.Dialector.(gorm.ErrorTranslator); ok {
		var dup *uniq.DuplicateError
		if errors.As(err, &dup) {
			return &translatedError{translated: gorm.ErrDuplicatedKey, driver: err}
		}
		return t.Translate(err)
	}
	return err
}

// shareLock renders MySQL's LOCK IN SHARE MODE in GORM's locking clause slot.
type shareLock struct{}

func (shareLock) Name() string           { return "FOR" }
func (shareLock) Build(b clause.Builder) { b.WriteString("LOCK IN SHARE MODE") }
func (shareLock) MergeClause(c *clause.Clause) {
	c.Name = "" // the clause is named FOR; this spelling has no FOR
	c.Expression = shareLock{}
}
