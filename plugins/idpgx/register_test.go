package idpgx_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/idgen/idgen"
	"github.com/idgen/idgen/plugins/idpgx"
	"github.com/jackc/pgx/v5/pgtype"
)

// Types shaped like generated ones: the plugin reads only their registry entries.
type (
	userID     int64
	orderNo    string
	sessionID  [16]byte
	documentID [12]byte
)

func entry(zero any, s idgen.Storage) idgen.Type {
	return idgen.Type{Zero: zero, Storage: s, GoType: reflect.TypeOf(zero), Name: reflect.TypeOf(zero).String()}
}

func TestRegisterTypes(t *testing.T) {
	m := pgtype.NewMap()
	err := idpgx.RegisterTypes(m,
		entry(userID(0), idgen.StorageInt8),
		entry(orderNo(""), idgen.StorageText),
		entry(sessionID{}, idgen.StorageUUID),
		entry(documentID{}, idgen.StorageText),
	)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		value any
		want  string
	}{
		{userID(1), "int8"},
		{new(userID), "int8"},
		{[]userID{1}, "_int8"},
		{&[]userID{1}, "_int8"},
		{[]*userID{nil}, "_int8"},
		{orderNo(""), "text"},
		{[]orderNo{}, "_text"},
		{sessionID{}, "uuid"},
		{[]sessionID{}, "_uuid"},
		{[]*sessionID{}, "_uuid"},
		{documentID{}, "text"},
		{[]documentID{}, "_text"},
	} {
		dt, ok := m.TypeForValue(c.value)
		if !ok || dt.Name != c.want {
			t.Errorf("TypeForValue(%T) = %v, %v; want %s", c.value, dt, ok, c.want)
		}
	}
	// A type map without registration knows none of them: the test above is not vacuous.
	if dt, ok := pgtype.NewMap().TypeForValue([]userID{}); ok {
		t.Errorf("an empty map knows []userID as %s", dt.Name)
	}
}

func TestRegisterTypesRefuses(t *testing.T) {
	for _, c := range []struct {
		name string
		typ  idgen.Type
		want string
	}{
		{"no storage", entry(userID(0), ""), `storage ""`},
		{"unknown storage", entry(userID(0), "blob"), `storage "blob"`},
		{"no type", idgen.Type{Name: "x.Y", Storage: idgen.StorageInt8}, "neither GoType nor Zero"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := idpgx.RegisterTypes(pgtype.NewMap(), c.typ)
			if err == nil || !strings.HasPrefix(err.Error(), "idpgx: ") || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err %v, want one containing %q", err, c.want)
			}
			if errors.Unwrap(err) != nil {
				t.Errorf("unexpected cause %v", errors.Unwrap(err))
			}
		})
	}
}
