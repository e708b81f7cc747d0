package idpgx

import (
	"context"
	"fmt"
	"reflect"

	"github.com/idgen/idgen"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// Register registers every generated ID type in idgen's registry with conn's type map.
// Its signature is pgxpool.Config.AfterConnect's.
func Register(ctx context.Context, conn *pgx.Conn) error {
	return RegisterTypes(conn.TypeMap(), idgen.Types()...)
}

// RegisterTypes registers types with m: each type, a pointer to it, a slice of it, a
// pointer to that slice and a slice of pointers, as its storage's PostgreSQL type (int8,
// text or uuid) and that type's array. With no types it registers nothing.
func RegisterTypes(m *pgtype.Map, types ...idgen.Type) error {
	for _, t := range types {
		name, err := pgName(t)
		if err != nil {
			return err
		}
		rt := t.GoType
		if rt == nil {
			if t.Zero == nil {
				return fmt.Errorf("idpgx: type %q has neither GoType nor Zero", t.Name)
			}
			rt = reflect.TypeOf(t.Zero)
		}
		if _, ok := m.TypeForName(name); !ok {
			return fmt.Errorf("idpgx: the type map has no PostgreSQL type %q for %s", name, rt)
		}
		ptr, slice := reflect.PointerTo(rt), reflect.SliceOf(rt)
		for _, v := range []struct {
			t    reflect.Type
			name string
		}{
			{rt, name},
			{ptr, name},
			{slice, "_" + name},
			{reflect.PointerTo(slice), "_" + name},
			{reflect.SliceOf(ptr), "_" + name},
		} {
			m.RegisterDefaultPgType(reflect.Zero(v.t).Interface(), v.name)
		}
	}
	return nil
}

// pgName is the PostgreSQL type of what t's Value writes.
func pgName(t idgen.Type) (string, error) {
	switch t.Storage {
	case idgen.StorageInt8:
		return "int8", nil
	case idgen.StorageText:
		return "text", nil
	case idgen.StorageUUID:
		return "uuid", nil
	}
	return "", fmt.Errorf("idpgx: type %s has storage %q: want int8, text or uuid", t.Name, t.Storage)
}
