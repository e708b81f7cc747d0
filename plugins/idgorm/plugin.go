package idgorm

import (
	"context"
	"fmt"
	"reflect"
	"strconv"
	"sync"

	"github.com/google/uuid"
	"gorm.io/gorm"
	"gorm.io/gorm/schema"

	"github.com/idgen/idgen"
	"github.com/idgen/idgen/runtime/uuidv7"
)

// Name is the plugin's name in gorm.Config.Plugins.
const Name = "idgen"

// Config configures the plugin.
type Config struct {
	// Source gives IDs to fields that need one: plain fields tagged idgen:"snowflake", and
	// generated types (passed to their Generate). Nil means idgen.Default().
	Source idgen.Source
}

// Plugin is the GORM plugin. Install it with db.Use(New(cfg)).
type Plugin struct {
	cfg    Config
	fields sync.Map // *schema.Schema -> []idField or error

	keys        sync.Map // keyID -> *uniqueKey: unique keys found by CreateOrGet
	primaryKeys sync.Map // tableID -> []keyColumn: for creates without a model
	timeDigits  sync.Map // tableID -> map[string]int: time columns' precision, for Check
}

// New returns the plugin.
func New(cfg Config) *Plugin { return &Plugin{cfg: cfg} }

// Name implements gorm.Plugin.
func (p *Plugin) Name() string { return Name }

// Initialize implements gorm.Plugin: it registers the create callbacks and keeps driver
// errors inside GORM's translated ones, so runtime/uniq still sees the constraint when
// TranslateError is on.
func (p *Plugin) Initialize(db *gorm.DB) error {
	create := db.Callback().Create()
	if err := create.Before("gorm:create").After("gorm:before_create").Register("idgen:assign", p.assign); err != nil {
		return err
	}
	if err := create.After("gorm:create").Before("gorm:save_after_associations").Register("idgen:idempotent", afterInsert); err != nil {
		return err
	}
	if err := create.After("gorm:create").Before("gorm:save_after_associations").Register("idgen:upsert", p.afterUpsert); err != nil {
		return err
	}
	if t, ok := db.Dialector.(gorm.ErrorTranslator); ok {
		db.Dialector = keepDriverError{Dialector: db.Dialector, translator: t}
	}
	return nil
}

// kind says how a field gets its ID.
type kind uint8

const (
	kindGenerated kind = iota // the field's type implements idgen.Generated
	kindSnowflake             // tagged snowflake: int64, uint64 or decimal string
	kindUUID7                 // tagged uuid7: string
)

// The idgen tag's values.
const (
	tagFill      = "fill"      // fill this field of a generated type, though it is not the key
	tagSnowflake = "snowflake" // fill this plain field with a snowflake ID
	tagUUID7     = "uuid7"     // fill this plain field with a UUIDv7
	tagSkip      = "-"         // never fill this field
)

type idField struct {
	field *schema.Field
	kind  kind
	// key says the field is the primary key, which an insert must write: one that leaves
	// it out (Select, Omit) while the database does not fill it is refused.
	key bool
}

var generatedType = reflect.TypeFor[idgen.Generated]()

// idFields returns the fields of s that the plugin fills, computed once per schema.
func (p *Plugin) idFields(s *schema.Schema) ([]idField, error) {
	if v, ok := p.fields.Load(s); ok {
		if err, ok := v.(error); ok {
			return nil, err
		}
		return v.([]idField), nil
	}
	fs, err := findFields(s)
	if err != nil {
		p.fields.Store(s, err)
		return nil, err
	}
	p.fields.Store(s, fs)
	return fs, nil
}

// findFields applies the rule of the package documentation ("Which fields are filled"):
// the primary key when its type is generated, and the fields marked with a tag; never a
// field GORM does not write or one that refers to another row. A mark on such a field is
// an error, so that a model's mistake shows at its first create.
func findFields(s *schema.Schema) ([]idField, error) {
	var out []idField
	for _, f := range s.Fields {
		if f.StructField.Anonymous || f.FieldType == nil {
			continue
		}
		tag := f.Tag.Get("idgen")
		generated := reflect.PointerTo(f.FieldType).Implements(generatedType)
		bad := func(want string) error {
			return fmt.Errorf("idgorm: field %s.%s has tag idgen:%q but type %s: want %s", s.Name, f.Name, tag, f.FieldType, want)
		}
		var k kind
		switch tag {
		case "":
			if !generated || !f.PrimaryKey {
				continue
			}
			k = kindGenerated
		case tagFill:
			if !generated {
				return nil, bad(`a type written by idgen-gen (tag a plain field idgen:"snowflake" or idgen:"uuid7")`)
			}
			k = kindGenerated
		case tagSnowflake:
			switch f.FieldType.Kind() {
			case reflect.Int64, reflect.Uint64, reflect.String:
			default:
				return nil, bad("int64, uint64 or string")
			}
			k = kindSnowflake
		case tagUUID7:
			if f.FieldType.Kind() != reflect.String {
				return nil, bad("string")
			}
			k = kindUUID7
		case tagSkip:
			continue
		default:
			return nil, fmt.Errorf("idgorm: field %s.%s: unknown tag idgen:%q: want fill, snowflake, uuid7 or -", s.Name, f.Name, tag)
		}
		if why := neverFilled(s, f); why != "" {
			if tag != "" {
				return nil, fmt.Errorf("idgorm: field %s.%s has tag idgen:%q but %s: the plugin never fills it", s.Name, f.Name, tag, why)
			}
			continue
		}
		out = append(out, idField{field: f, kind: k, key: f.PrimaryKey})
	}
	return out, nil
}

// neverFilled says why f is no field to fill, or "": GORM does not write it (gorm:"-",
// gorm:"->"), or it refers to a row of a relationship (a belongs-to foreign key, the
// parent of a tree), whose value comes from that row and never from a new ID.
func neverFilled(s *schema.Schema, f *schema.Field) string {
	if !f.Creatable || f.DBName == "" {
		return `GORM does not write it (gorm:"-" or gorm:"->")`
	}
	s.Relationships.Mux.RLock()
	defer s.Relationships.Mux.RUnlock()
	for _, rel := range s.Relationships.Relations {
		for _, ref := range rel.References {
			if fk := ref.ForeignKey; fk != nil && fk.Schema == s && fk.Name == f.Name {
				return fmt.Sprintf("it is the foreign key of relationship %s", rel.Name)
			}
		}
	}
	return ""
}

// assign is the create callback that fills zero ID fields, row by row, in the fields the
// insert writes.
func (p *Plugin) assign(db *gorm.DB) {
	if db.Error != nil {
		return
	}
	stmt := db.Statement
	if stmt.Schema == nil {
		// db.Table(...).Create(map): no model to say which field is the ID.
		db.AddError(p.checkTableMap(db))
		return
	}
	fields, err := p.idFields(stmt.Schema)
	if err != nil {
		db.AddError(err)
		return
	}
	if len(fields) == 0 {
		return
	}
	written, err := writtenFields(stmt, fields)
	if err != nil {
		db.AddError(err)
		return
	}
	up := p.upsertOf(db, written)
	var filled func(reflect.Value)
	if up != nil {
		filled = func(row reflect.Value) { up.rows = append(up.rows, row) }
	}
	db.AddError(p.fill(stmt.Context, written, stmt.ReflectValue, filled))
	if up != nil && len(up.rows) > 0 {
		up.prepare(db)
	}
}

// writtenFields returns the fields of fields that the insert of stmt writes: all of them,
// unless Select or Omit leave some out. A primary key left out that the database does
// not fill either is an error: the row would have no ID.
func writtenFields(stmt *gorm.Statement, fields []idField) ([]idField, error) {
	if len(stmt.Selects) == 0 && len(stmt.Omits) == 0 {
		return fields, nil
	}
	selected, restricted := stmt.SelectAndOmitColumns(true, false)
	out := make([]idField, 0, len(fields))
	for _, f := range fields {
		if v, ok := selected[f.field.DBName]; (ok && v) || (!ok && !restricted) {
			out = append(out, f)
			continue
		}
		if f.key && !f.field.HasDefaultValue {
			return nil, fmt.Errorf("idgorm: %s.%s is left out of the insert by Select or Omit, and the database does not fill it: the row would have no ID; keep it in the insert, or tag it idgen:%q if the database fills it",
				stmt.Schema.Name, f.field.Name, tagSkip)
		}
	}
	return out, nil
}

// Fill gives every zero ID field of model (a pointer to a struct, or a slice of them) a
// new ID, as the plugin does on create: the primary key and the fields marked with a tag.
// Models that assign IDs in their own BeforeCreate call it with tx.
func Fill(tx *gorm.DB, model any) error {
	p, ok := tx.Config.Plugins[Name].(*Plugin)
	if !ok {
		p = New(Config{})
	}
	s, err := parseSchema(tx, model)
	if err != nil {
		return err
	}
	fields, err := p.idFields(s)
	if err != nil {
		return err
	}
	ctx := context.Background()
	if tx.Statement != nil && tx.Statement.Context != nil {
		ctx = tx.Statement.Context
	}
	return p.fill(ctx, fields, reflect.ValueOf(model), nil)
}

// fill fills the zero fields of every row of rv; filled, if not nil, hears of each struct
// row whose primary key it filled.
func (p *Plugin) fill(ctx context.Context, fields []idField, rv reflect.Value, filled func(reflect.Value)) error {
	rv = reflect.Indirect(rv)
	switch rv.Kind() {
	case reflect.Struct:
		return p.fillRow(ctx, fields, rv, filled)
	case reflect.Slice, reflect.Array:
		for i := 0; i < rv.Len(); i++ {
			row := rv.Index(i)
			for row.Kind() == reflect.Pointer || row.Kind() == reflect.Interface {
				if row.IsNil() {
					break
				}
				row = row.Elem()
			}
			if row.Kind() == reflect.Map {
				if err := p.fillMap(ctx, fields, row); err != nil {
					return err
				}
				continue
			}
			if row.Kind() != reflect.Struct {
				continue
			}
			if err := p.fillRow(ctx, fields, row, filled); err != nil {
				return err
			}
		}
	case reflect.Map:
		return p.fillMap(ctx, fields, rv)
	}
	return nil
}

func (p *Plugin) fillRow(ctx context.Context, fields []idField, row reflect.Value, filled func(reflect.Value)) error {
	for _, f := range fields {
		fv := f.field.ReflectValueOf(ctx, row)
		if !fv.IsZero() {
			continue
		}
		if !fv.CanAddr() {
			return fmt.Errorf("idgorm: cannot set %s: pass a pointer to Create", f.field.Name)
		}
		if err := p.setNew(ctx, f, fv); err != nil {
			return err
		}
		if f.key && filled != nil {
			filled(row)
		}
	}
	return nil
}

// fillMap fills map creates (db.Model(&T{}).Create(map[string]any{...})) whose value for
// the field, under its Go name or its column name, is missing, nil (a nil interface or a
// nil pointer) or zero. The new value goes under the key the map already has, so that GORM
// sees one column, or else under the column name.
func (p *Plugin) fillMap(ctx context.Context, fields []idField, m reflect.Value) error {
	if m.Type().Key().Kind() != reflect.String {
		return fmt.Errorf("idgorm: cannot fill IDs into a %s", m.Type())
	}
	for _, f := range fields {
		key := reflect.ValueOf(f.field.DBName).Convert(m.Type().Key())
		var cur reflect.Value
		for _, name := range []string{f.field.Name, f.field.DBName} {
			k := reflect.ValueOf(name).Convert(m.Type().Key())
			if v := m.MapIndex(k); v.IsValid() {
				key, cur = k, v
				break
			}
		}
		if !zeroValue(cur) {
			continue
		}
		v := reflect.New(f.field.FieldType).Elem()
		if err := p.setNew(ctx, f, v); err != nil {
			return err
		}
		if !v.Type().AssignableTo(m.Type().Elem()) {
			return fmt.Errorf("idgorm: cannot put a %s into a %s", v.Type(), m.Type())
		}
		m.SetMapIndex(key, v)
	}
	return nil
}

// zeroValue reports whether a map's value v stands for no ID: absent, a nil interface or
// pointer, or the zero value of its type (behind any pointers).
func zeroValue(v reflect.Value) bool {
	for v.IsValid() && (v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer) {
		if v.IsNil() {
			return true
		}
		v = v.Elem()
	}
	return !v.IsValid() || v.IsZero()
}

// setNew stores a new ID in the addressable value v.
func (p *Plugin) setNew(ctx context.Context, f idField, v reflect.Value) error {
	switch f.kind {
	case kindGenerated:
		if err := v.Addr().Interface().(idgen.Generated).Generate(ctx, p.cfg.Source); err != nil {
			return fmt.Errorf("idgorm: new %s for %s: %w", f.field.FieldType, f.field.Name, err)
		}
	case kindSnowflake:
		id, err := idgen.Next(ctx, p.cfg.Source)
		if err != nil {
			return fmt.Errorf("idgorm: new ID for %s: %w", f.field.Name, err)
		}
		switch v.Kind() {
		case reflect.Int64:
			v.SetInt(id)
		case reflect.Uint64:
			v.SetUint(uint64(id))
		case reflect.String:
			v.SetString(strconv.FormatInt(id, 10))
		}
	case kindUUID7:
		// The process's one monotonic UUIDv7 source, the one generated types use.
		b, err := uuidv7.New()
		if err != nil {
			return fmt.Errorf("idgorm: new UUIDv7 for %s: %w", f.field.Name, err)
		}
		v.SetString(uuid.UUID(b).String())
	}
	return nil
}

// parseSchema returns the model's schema from GORM's cache.
func parseSchema(db *gorm.DB, model any) (*schema.Schema, error) {
	stmt := &gorm.Statement{DB: db}
	if err := stmt.Parse(model); err != nil {
		return nil, fmt.Errorf("idgorm: %w", err)
	}
	return stmt.Schema, nil
}
