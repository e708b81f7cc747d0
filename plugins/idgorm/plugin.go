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

	keys sync.Map // keyID -> *uniqueKey: unique keys found by CreateOrGet
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

type idField struct {
	field *schema.Field
	kind  kind
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

func findFields(s *schema.Schema) ([]idField, error) {
	var out []idField
	for _, f := range s.Fields {
		if f.StructField.Anonymous || f.FieldType == nil {
			continue
		}
		tag := f.Tag.Get("idgen")
		if tag == "" {
			if reflect.PointerTo(f.FieldType).Implements(generatedType) {
				out = append(out, idField{field: f, kind: kindGenerated})
			}
			continue
		}
		bad := func(want string) error {
			return fmt.Errorf("idgorm: field %s.%s has tag idgen:%q but type %s: want %s", s.Name, f.Name, tag, f.FieldType, want)
		}
		switch tag {
		case "snowflake":
			switch f.FieldType.Kind() {
			case reflect.Int64, reflect.Uint64, reflect.String:
			default:
				return nil, bad("int64, uint64 or string")
			}
			out = append(out, idField{field: f, kind: kindSnowflake})
		case "uuid7":
			if f.FieldType.Kind() != reflect.String {
				return nil, bad("string")
			}
			out = append(out, idField{field: f, kind: kindUUID7})
		case "-":
		default:
			return nil, fmt.Errorf("idgorm: field %s.%s: unknown tag idgen:%q: want snowflake or uuid7", s.Name, f.Name, tag)
		}
	}
	return out, nil
}

// assign is the create callback that fills zero ID fields, row by row.
func (p *Plugin) assign(db *gorm.DB) {
	if db.Error != nil || db.Statement.Schema == nil {
		return
	}
	fields, err := p.idFields(db.Statement.Schema)
	if err != nil {
		db.AddError(err)
		return
	}
	if len(fields) == 0 {
		return
	}
	db.AddError(p.fill(db.Statement.Context, fields, db.Statement.ReflectValue, db.Statement.Dest))
}

// Fill gives every zero ID field of model (a pointer to a struct, or a slice of them) a
// new ID, as the plugin does on create. Models that assign IDs in their own BeforeCreate
// call it with tx.
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
	return p.fill(ctx, fields, reflect.ValueOf(model), model)
}

func (p *Plugin) fill(ctx context.Context, fields []idField, rv reflect.Value, dest any) error {
	rv = reflect.Indirect(rv)
	switch rv.Kind() {
	case reflect.Struct:
		return p.fillRow(ctx, fields, rv)
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
			if err := p.fillRow(ctx, fields, row); err != nil {
				return err
			}
		}
	case reflect.Map:
		return p.fillMap(ctx, fields, rv)
	}
	return nil
}

func (p *Plugin) fillRow(ctx context.Context, fields []idField, row reflect.Value) error {
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
	}
	return nil
}

// fillMap fills map creates (db.Model(&T{}).Create(map[string]any{...})) that lack the
// field, under its database column name.
func (p *Plugin) fillMap(ctx context.Context, fields []idField, m reflect.Value) error {
	if m.Type().Key().Kind() != reflect.String {
		return fmt.Errorf("idgorm: cannot fill IDs into a %s", m.Type())
	}
	for _, f := range fields {
		var cur reflect.Value
		for _, key := range []string{f.field.Name, f.field.DBName} {
			if v := m.MapIndex(reflect.ValueOf(key)); v.IsValid() {
				cur = v
				break
			}
		}
		if cur.IsValid() && !(cur.Kind() == reflect.Interface && cur.IsNil()) && !reflect.Indirect(cur.Elem()).IsZero() {
			continue
		}
		v := reflect.New(f.field.FieldType).Elem()
		if err := p.setNew(ctx, f, v); err != nil {
			return err
		}
		if !v.Type().AssignableTo(m.Type().Elem()) {
			return fmt.Errorf("idgorm: cannot put a %s into a %s", v.Type(), m.Type())
		}
		m.SetMapIndex(reflect.ValueOf(f.field.DBName), v)
	}
	return nil
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
