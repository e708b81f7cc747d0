package idgorm

import (
	"context"
	"database/sql/driver"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/idgen/idgen/runtime/sqldb"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
	"gorm.io/gorm/schema"
)

// upsertKey holds, in a statement's instance settings, the *upsert of a create with a
// clause.OnConflict whose primary keys the plugin filled.
const upsertKey = "idgen:upsert"

// upsert is a create with a clause.OnConflict in which the plugin gave rows a new primary
// key. A row whose key was already held was not inserted, so its new ID was never stored:
// after the statement the plugin puts the stored ID in the struct, or zero when it cannot
// find the row. See "Upserts" in the package documentation.
type upsert struct {
	field    *schema.Field // the primary key, the model's only one
	conflict clause.OnConflict
	// rows are the struct rows (addressable) whose primary key the plugin filled.
	rows []reflect.Value
	// returning says the statement returns the stored primary key of every row
	// (PostgreSQL and SQLite, DO UPDATE), and GORM puts it in the rows.
	returning bool
}

// upsertOf returns the upsert of db's create, or nil when it is no upsert, when it is
// CreateOrGet's own insert, or when the model's primary key is not one field the plugin
// fills.
func (p *Plugin) upsertOf(db *gorm.DB, fields []idField) *upsert {
	c, ok := db.Statement.Clauses["ON CONFLICT"]
	if !ok {
		return nil
	}
	oc, ok := c.Expression.(clause.OnConflict)
	if !ok {
		return nil
	}
	if v, ok := db.Get(idempotentKey); ok && v == true {
		return nil
	}
	if len(db.Statement.Schema.PrimaryFields) != 1 {
		return nil
	}
	for _, f := range fields {
		if f.key {
			return &upsert{field: f.field, conflict: oc}
		}
	}
	return nil
}

// prepare, before the insert, asks PostgreSQL and SQLite for the stored primary key of
// each row of a DO UPDATE (RETURNING), and keeps u for afterUpsert.
func (u *upsert) prepare(db *gorm.DB) {
	switch dialectOf(db) {
	case sqldb.Postgres, sqldb.SQLite:
		// DO NOTHING returns no row for a conflict, and DO UPDATE ... WHERE none for a row
		// the condition kept: then the rows cannot be matched in order, and afterUpsert
		// reads the stored IDs.
		update := len(u.conflict.DoUpdates) > 0 || u.conflict.UpdateAll
		if update && !u.conflict.DoNothing && len(u.conflict.Where.Exprs) == 0 {
			u.returning = u.addReturning(db)
		}
	}
	db.InstanceSet(upsertKey, u)
}

// addReturning adds RETURNING of the primary key, and of the columns GORM would have
// asked back itself (those with a database default), unless the statement already has a
// RETURNING: then it reports whether that one returns the key.
func (u *upsert) addReturning(db *gorm.DB) bool {
	if c, ok := db.Statement.Clauses["RETURNING"]; ok {
		r, _ := c.Expression.(clause.Returning)
		return len(r.Columns) == 0 || slices.ContainsFunc(r.Columns, func(c clause.Column) bool {
			return c.Name == "*" || c.Name == u.field.DBName
		})
	}
	cols := []clause.Column{{Name: u.field.DBName}}
	for _, f := range db.Statement.Schema.FieldsWithDefaultDBValue {
		if f.Readable && f.DBName != u.field.DBName {
			cols = append(cols, clause.Column{Name: f.DBName})
		}
	}
	db.Statement.AddClause(clause.Returning{Columns: cols})
	return true
}

// afterUpsert is the create callback that, after an upsert, gives each row whose primary
// key the plugin filled the key stored in its row.
func (p *Plugin) afterUpsert(db *gorm.DB) {
	v, ok := db.InstanceGet(upsertKey)
	if !ok || db.Error != nil {
		return
	}
	u := v.(*upsert)
	if u.returning && strings.Contains(db.Statement.SQL.String(), "RETURNING") {
		return // GORM put the stored keys in the rows
	}
	db.AddError(u.resolve(db))
}

// resolve reads the stored primary keys of u's rows: by the conflict's columns when the
// clause names them (MySQL's SQL does not use them, but the plugin does), else by the
// keys the plugin gave, which are stored only for the rows inserted; a row it cannot
// find gets the zero key, never one that is not stored.
func (u *upsert) resolve(db *gorm.DB) error {
	stmt := db.Statement
	ctx := stmt.Context
	dialect := dialectOf(db)
	if dialect != sqldb.MySQL && !strings.Contains(stmt.SQL.String(), "RETURNING") && db.RowsAffected == int64(rowCount(stmt.ReflectValue)) {
		return nil // every row was inserted (RowsAffected counts them where no RETURNING inflates it)
	}
	var cols []*schema.Field
	for _, c := range u.conflict.Columns {
		f := stmt.Schema.LookUpField(c.Name)
		if f == nil {
			cols = nil
			break
		}
		cols = append(cols, f)
	}
	if len(cols) == 1 && cols[0] == u.field {
		cols = nil // the primary key: GORM's target for UpdateAll, which a new key never meets
	}
	by := cols
	if len(by) == 0 {
		by = []*schema.Field{u.field}
	}
	conds := make([]clause.Expression, 0, len(u.rows))
	for _, row := range u.rows {
		eqs := make([]clause.Expression, len(by))
		for i, f := range by {
			v, _ := f.ValueOf(ctx, row)
			eqs[i] = clause.Eq{Column: clause.Column{Table: clause.CurrentTable, Name: f.DBName}, Value: v}
		}
		conds = append(conds, clause.And(eqs...))
	}
	selects := []string{u.field.DBName}
	for _, f := range cols {
		selects = append(selects, f.DBName)
	}
	found := reflect.New(reflect.SliceOf(stmt.Schema.ModelType))
	q := db.Session(&gorm.Session{NewDB: true, SkipHooks: true}).Unscoped().Table(stmt.Table).
		Select(selects).Where(clause.Or(conds...))
	if dialect == sqldb.MySQL {
		q = q.Clauses(shareLock{}) // the rows the upsert met, not the REPEATABLE READ snapshot
	}
	if err := q.Find(found.Interface()).Error; err != nil {
		return fmt.Errorf("idgorm: reading the IDs stored by an upsert of %s: %w", stmt.Schema.Name, err)
	}
	stored := map[string]reflect.Value{}
	for i := 0; i < found.Elem().Len(); i++ {
		row := found.Elem().Index(i)
		stored[keyText(ctx, row, by)] = row
	}
	for _, row := range u.rows {
		fv := u.field.ReflectValueOf(ctx, row)
		if s, ok := stored[keyText(ctx, row, by)]; ok {
			fv.Set(u.field.ReflectValueOf(ctx, s))
		} else {
			fv.SetZero()
		}
	}
	return nil
}

// rowCount is the number of rows of a create's value.
func rowCount(rv reflect.Value) int {
	rv = reflect.Indirect(rv)
	if rv.Kind() == reflect.Slice || rv.Kind() == reflect.Array {
		return rv.Len()
	}
	return 1
}

// keyText is the text of row's values in fields, as the driver receives them, for
// matching a row read back with the row sent: equal values give equal texts.
func keyText(ctx context.Context, row reflect.Value, fields []*schema.Field) string {
	var b strings.Builder
	for _, f := range fields {
		v, _ := f.ValueOf(ctx, row)
		if x, err := driver.DefaultParameterConverter.ConvertValue(v); err == nil {
			v = x
		}
		switch x := v.(type) {
		case time.Time:
			v = x.UTC().Format(time.RFC3339Nano)
		case []byte:
			v = string(x)
		}
		fmt.Fprintf(&b, "%T\x00%v\x01", v, v)
	}
	return b.String()
}
