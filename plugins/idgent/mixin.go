package idgent

import (
	"context"
	"database/sql/driver"
	"fmt"

	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/mixin"

	"github.com/idgen/idgen"
	"github.com/idgen/idgen/plugins/idgent/internal/dupname"
)

// generated is what cmd/idgen-gen writes, on the pointer of an ID type T.
type generated[T any] interface {
	*T
	idgen.Generated
}

// IDMixin gives a schema an int64 "id" field that is filled on create, when the create
// does not set one, from src (nil: idgen.Default()). Bulk creates give each row its own ID.
type IDMixin struct {
	mixin.Schema
	src idgen.Source
}

// ID returns an IDMixin for a plain int64 ID.
func ID(src idgen.Source) IDMixin { return IDMixin{src: src} }

// Fields implements ent.Mixin.
func (m IDMixin) Fields() []ent.Field {
	return []ent.Field{field.Int64("id").Immutable().Positive()}
}

// Hooks implements ent.Mixin.
func (m IDMixin) Hooks() []ent.Hook {
	return []ent.Hook{createHook(func(ctx context.Context, mu ent.Mutation) error {
		sm, ok := mu.(interface {
			ID() (int64, bool)
			SetID(int64)
		})
		if !ok {
			return fmt.Errorf("idgent: %s mutation cannot set an int64 id", mu.Type())
		}
		if _, set := sm.ID(); set {
			return nil
		}
		v, err := idgen.Next(ctx, m.src)
		if err != nil {
			return fmt.Errorf("idgent: new %s id: %w", mu.Type(), err)
		}
		sm.SetID(v)
		return nil
	})}
}

// TypedIDMixin gives a schema an "id" field of a snowflake type T written by
// cmd/idgen-gen (stored as BIGINT), filled on create when not set.
type TypedIDMixin[T ~int64, PT generated[T]] struct {
	mixin.Schema
	src idgen.Source
}

// TypedID returns a TypedIDMixin, for example TypedID[models.UserID](nil).
func TypedID[T ~int64, PT generated[T]](src idgen.Source) TypedIDMixin[T, PT] {
	return TypedIDMixin[T, PT]{src: src}
}

// Fields implements ent.Mixin.
func (m TypedIDMixin[T, PT]) Fields() []ent.Field {
	var zero T
	return []ent.Field{field.Int64("id").GoType(zero).Immutable()}
}

// Hooks implements ent.Mixin.
func (m TypedIDMixin[T, PT]) Hooks() []ent.Hook { return []ent.Hook{idHook[T, PT](m.src)} }

// UUIDIDMixin gives a schema an "id" field of a UUIDv7 or TypeID type T written by
// cmd/idgen-gen (a native uuid column where the database has one), filled on create.
type UUIDIDMixin[T uuidType, PT generated[T]] struct {
	mixin.Schema
}

// UUIDID returns a UUIDIDMixin, for example UUIDID[models.SessionID]().
func UUIDID[T uuidType, PT generated[T]]() UUIDIDMixin[T, PT] { return UUIDIDMixin[T, PT]{} }

// Fields implements ent.Mixin.
func (m UUIDIDMixin[T, PT]) Fields() []ent.Field {
	var zero T
	return []ent.Field{field.UUID("id", zero).Immutable()}
}

// Hooks implements ent.Mixin.
func (m UUIDIDMixin[T, PT]) Hooks() []ent.Hook { return []ent.Hook{idHook[T, PT](nil)} }

// uuidType is a [16]byte ID type with a driver.Valuer, as cmd/idgen-gen writes them.
type uuidType interface {
	~[16]byte
	driver.Valuer
}

// idHook fills an unset id of type T on create.
func idHook[T any, PT generated[T]](src idgen.Source) ent.Hook {
	return createHook(func(ctx context.Context, mu ent.Mutation) error {
		sm, ok := mu.(interface {
			ID() (T, bool)
			SetID(T)
		})
		if !ok {
			var zero T
			return fmt.Errorf("idgent: %s mutation cannot set an id of type %T", mu.Type(), zero)
		}
		if _, set := sm.ID(); set {
			return nil
		}
		var v T
		if err := PT(&v).Generate(ctx, src); err != nil {
			return fmt.Errorf("idgent: new %s id: %w", mu.Type(), err)
		}
		sm.SetID(v)
		return nil
	})
}

// NumberMixin adds a business-number field of type T written by cmd/idgen-gen: unique,
// immutable, filled on create when not set.
type NumberMixin[T ~string, PT generated[T]] struct {
	mixin.Schema
	name string
	src  idgen.Source
}

// Number returns a NumberMixin for the field name, for example Number[models.OrderNo]("no", nil).
func Number[T ~string, PT generated[T]](name string, src idgen.Source) NumberMixin[T, PT] {
	return NumberMixin[T, PT]{name: name, src: src}
}

// Fields implements ent.Mixin.
func (m NumberMixin[T, PT]) Fields() []ent.Field {
	var zero T
	return []ent.Field{field.String(m.name).GoType(zero).Unique().Immutable().MaxLen(64).
		SchemaType(map[string]string{"mysql": "varchar(64)"})}
}

// Hooks implements ent.Mixin.
func (m NumberMixin[T, PT]) Hooks() []ent.Hook {
	return []ent.Hook{createHook(func(ctx context.Context, mu ent.Mutation) error {
		if v, ok := mu.Field(m.name); ok {
			if s, ok := v.(T); ok && s != "" {
				return nil
			}
		}
		var v T
		if err := PT(&v).Generate(ctx, m.src); err != nil {
			return fmt.Errorf("idgent: new %s.%s: %w", mu.Type(), m.name, err)
		}
		return mu.SetField(m.name, v)
	})}
}

// DuplicatesMixin adds Duplicates to a schema's hooks.
type DuplicatesMixin struct{ mixin.Schema }

// Hooks implements ent.Mixin.
func (DuplicatesMixin) Hooks() []ent.Hook { return []ent.Hook{Duplicates()} }

// Duplicates returns a hook that turns a unique violation into a *uniq.DuplicateError
// naming the constraint (errors.Is(err, uniq.ErrDuplicate)); other errors, foreign-key
// violations included, pass unchanged. The driver's error stays in the chain. SQLite's
// message names only the table and columns: the hook then asks the database, on the
// mutation's connection, for the unique index on exactly those columns (code generated
// with the entc extension has the sql/execquery feature this needs), and names it.
func Duplicates() ent.Hook {
	return func(next ent.Mutator) ent.Mutator {
		return ent.MutateFunc(func(ctx context.Context, m ent.Mutation) (ent.Value, error) {
			v, err := next.Mutate(ctx, m)
			if err != nil {
				q, _ := m.(dupname.Querier)
				err = dupname.Wrap(ctx, q, err)
			}
			return v, err
		})
	}
}

// createHook runs fill before create mutations.
func createHook(fill func(context.Context, ent.Mutation) error) ent.Hook {
	return func(next ent.Mutator) ent.Mutator {
		return ent.MutateFunc(func(ctx context.Context, m ent.Mutation) (ent.Value, error) {
			if m.Op().Is(ent.OpCreate) {
				if err := fill(ctx, m); err != nil {
					return nil, err
				}
			}
			return next.Mutate(ctx, m)
		})
	}
}
