package idgorm

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
	"gorm.io/gorm/schema"

	"github.com/idgen/idgen/internal/payload"
	"github.com/idgen/idgen/runtime/uniq"
)

var (
	// ErrDeleted is returned, with the row loaded, when the key belongs to a soft-deleted row.
	ErrDeleted = errors.New("idgorm: the key belongs to a deleted row")
	// ErrMismatch is matched by every *MismatchError.
	ErrMismatch = errors.New("idgorm: the key was used with different values")
	// errHit stops a create whose key already exists before its after-create steps.
	errHit = errors.New("idgorm: key exists")
)

// MismatchError reports a key reused with different values in the fields CreateOrGet was
// told to check: the same request key with another payload. The existing row is loaded.
type MismatchError struct {
	Key    []string // the key's columns
	Fields []string // the checked fields that differ
}

// Error implements error.
func (e *MismatchError) Error() string {
	return fmt.Sprintf("idgorm: key (%s) was used with different %s", strings.Join(e.Key, ", "), strings.Join(e.Fields, ", "))
}

// Is reports whether target is ErrMismatch.
func (e *MismatchError) Is(target error) bool { return target == ErrMismatch }

// Option configures CreateOrGet.
type Option func(*options)

type options struct {
	key, check []string
	index      string
}

// Key names the unique key that makes a create idempotent: field names or column names,
// in the order of the unique index. Required.
func Key(fields ...string) Option { return func(o *options) { o.key = append(o.key, fields...) } }

// Check names fields that must hold the same values in the existing row as in the
// caller's struct; a difference is a *MismatchError.
func Check(fields ...string) Option { return func(o *options) { o.check = append(o.check, fields...) } }

// Index names the key's unique index when its name cannot be found from the model's tags.
// MySQL reports duplicates by index name; other databases do not need it.
func Index(name string) Option { return func(o *options) { o.index = name } }

const idempotentKey = "idgen:idempotent"

// CreateOrGet inserts value, a pointer to a model, unless its key already holds a row: then
// it loads that row into value and returns created=false. See the package documentation.
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
	dialect := db.Dialector.Name()
	if dialect != "mysql" {
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
	default:
		v, ok := uniq.As(err)
		if !ok || dialect != "mysql" || !p.sameKey(s, keyFields, o.index, v) {
			return false, translate(db, uniq.Wrap(err))
		}
	}
	return false, load(db, s, value, keyFields, checkFields, want, o.key, dialect)
}

// load reads the row holding the key into value and checks the payload.
func load(db *gorm.DB, s *schema.Schema, value any, keyFields, checkFields []*schema.Field, want []any, key []string, dialect string) error {
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
		if dialect == "mysql" {
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
		if !payload.Equal(want[i], got) {
			differ = append(differ, f.Name)
		}
	}
	if len(differ) > 0 {
		return &MismatchError{Key: key, Fields: differ}
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

// sameKey reports whether a MySQL duplicate-key violation is on the key's unique index.
func (p *Plugin) sameKey(s *schema.Schema, keyFields []*schema.Field, index string, v *uniq.Violation) bool {
	if v.Constraint == "" {
		return false
	}
	names := []string{}
	if index != "" {
		names = append(names, index)
	}
	for _, idx := range p.indexes(s) {
		if idx.Class != "UNIQUE" || len(idx.Fields) != len(keyFields) {
			continue
		}
		match := true
		for i, f := range idx.Fields {
			if f.Field != keyFields[i] {
				match = false
			}
		}
		if match {
			names = append(names, idx.Name)
		}
	}
	if len(keyFields) == 1 && keyFields[0].Unique {
		// GORM's migrator names a unique column's constraint uni_<table>_<column>;
		// MySQL names an inline UNIQUE after the column.
		names = append(names, "uni_"+s.Table+"_"+keyFields[0].DBName, keyFields[0].DBName)
	}
	return slices.ContainsFunc(names, func(n string) bool { return strings.EqualFold(n, v.Constraint) })
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

// indexes returns the schema's indexes, parsed once: GORM's ParseIndexes writes to the
// schema and must not run concurrently.
func (p *Plugin) indexes(s *schema.Schema) []*schema.Index {
	if v, ok := p.indexCache.Load(s); ok {
		return v.([]*schema.Index)
	}
	p.indexMu.Lock()
	defer p.indexMu.Unlock()
	if v, ok := p.indexCache.Load(s); ok {
		return v.([]*schema.Index)
	}
	out := s.ParseIndexes()
	p.indexCache.Store(s, out)
	return out
}
