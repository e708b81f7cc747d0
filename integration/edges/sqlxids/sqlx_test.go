// Package sqlxids_test stores and queries every kind of generated ID with sqlx (NamedExec,
// Get, Select, In) on SQLite and PostgreSQL, proves that the writers refuse what the
// readers refuse, and checks go-playground/validator's `required` on every kind.
package sqlxids_test

import (
	"database/sql/driver"
	"encoding"
	"fmt"
	"slices"
	"testing"

	"github.com/go-playground/validator/v10"
	"github.com/jmoiron/sqlx"

	"github.com/idgen/idgen/integration/edges/ids"
	"github.com/idgen/idgen/integration/edges/internal/edgecase"
)

// id is what a generated type's pointer implements.
type id[T any] interface {
	*T
	edgecase.ID
	encoding.TextUnmarshaler
}

type row[T any] struct {
	ID T `db:"id"`
}

func parse[T any, P id[T]](t *testing.T, s string) T {
	t.Helper()
	var v T
	if err := P(&v).UnmarshalText([]byte(s)); err != nil {
		t.Fatalf("UnmarshalText(%q): %v", s, err)
	}
	return v
}

func str[T any, P id[T]](v T) string { return P(&v).String() }

// roundTrip stores three IDs of kind k with NamedExec, reads one back with Get, all with
// Select, and two with In, comparing text forms.
func roundTrip[T any, P id[T]](t *testing.T, db *sqlx.DB, k edgecase.Kind, table string) {
	want := []T{parse[T, P](t, k.New(t)), parse[T, P](t, k.New(t)), parse[T, P](t, k.New(t))}
	for _, v := range want {
		if _, err := db.NamedExec("INSERT INTO "+table+" (id) VALUES (:id)", row[T]{ID: v}); err != nil {
			t.Fatalf("NamedExec %s: %v", str[T, P](v), err)
		}
	}
	var one row[T]
	if err := db.Get(&one, db.Rebind("SELECT id FROM "+table+" WHERE id = ?"), want[1]); err != nil {
		t.Fatalf("Get: %v", err)
	}
	if str[T, P](one.ID) != str[T, P](want[1]) {
		t.Fatalf("Get: %s, want %s", str[T, P](one.ID), str[T, P](want[1]))
	}
	var all []T
	if err := db.Select(&all, "SELECT id FROM "+table); err != nil {
		t.Fatalf("Select: %v", err)
	}
	if len(all) != 3 {
		t.Fatalf("Select: %d rows, want 3", len(all))
	}
	q, args, err := sqlx.In("SELECT id FROM "+table+" WHERE id IN (?)", []T{want[0], want[2]})
	if err != nil {
		t.Fatalf("In: %v", err)
	}
	var some []T
	if err := db.Select(&some, db.Rebind(q), args...); err != nil {
		t.Fatalf("Select In: %v", err)
	}
	got := make([]string, len(some))
	for i, v := range some {
		got[i] = str[T, P](v)
	}
	slices.Sort(got)
	wantText := []string{str[T, P](want[0]), str[T, P](want[2])}
	slices.Sort(wantText)
	if !slices.Equal(got, wantText) {
		t.Fatalf("In: %v, want %v", got, wantText)
	}
}

// TestSQLXRoundTrip: every kind is written with NamedExec and read with Get, Select and
// In (its slice expanded into one parameter per ID) on SQLite and PostgreSQL.
func TestSQLXRoundTrip(t *testing.T) {
	for _, db := range edgecase.DBs(t, "edges_sqlx") {
		t.Run(db.Name, func(t *testing.T) {
			x := sqlx.NewDb(db.DB, map[string]string{"sqlite": "sqlite3", "postgres": "pgx"}[db.Name])
			tables := edgecase.Tables(t, db)
			for _, c := range []struct {
				kind string
				run  func(*testing.T, *sqlx.DB, edgecase.Kind, string)
			}{
				{"snowflake", roundTrip[ids.UserID]},
				{"prefixed", roundTrip[ids.AccountID]},
				{"number", roundTrip[ids.OrderNo]},
				{"uuid7", roundTrip[ids.TraceID]},
				{"typeid", roundTrip[ids.InvoiceID]},
				{"objectid", roundTrip[ids.DocumentID]},
			} {
				t.Run(c.kind, func(t *testing.T) {
					c.run(t, x, edgecase.Named(t, c.kind), tables[c.kind])
				})
			}
		})
	}
}

// TestSQLXRefusesInvalidValues: a value of a generated type that its Parse and Scan
// refuse (a negative snowflake, a malformed number made by conversion) is refused by
// Value, so neither Exec nor NamedExec writes it; and a value another writer stored is
// refused by Scan when read.
func TestSQLXRefusesInvalidValues(t *testing.T) {
	bad := []struct {
		kind  string
		value driver.Valuer
		raw   any // what a writer outside idgen stores
	}{
		{"snowflake", ids.UserID(-5), int64(-5)},
		{"prefixed", ids.AccountID(-1), int64(-1)},
		{"number", ids.OrderNo("ORD-not-a-number"), "ORD-not-a-number"},
		{"number", ids.OrderNo("PAY202612060430001234567890"), "PAY202612060430001234567890"},
	}
	for _, db := range edgecase.DBs(t, "edges_sqlx_bad") {
		t.Run(db.Name, func(t *testing.T) {
			x := sqlx.NewDb(db.DB, map[string]string{"sqlite": "sqlite3", "postgres": "pgx"}[db.Name])
			for _, b := range bad {
				t.Run(fmt.Sprintf("%s %v", b.kind, b.raw), func(t *testing.T) {
					k := edgecase.Named(t, b.kind)
					table := db.Table(t, k)
					if _, err := x.Exec(x.Rebind("INSERT INTO "+table+" (id) VALUES (?)"), b.value); err == nil {
						t.Errorf("Exec wrote %T %v", b.value, b.raw)
					}
					if _, err := x.NamedExec("INSERT INTO "+table+" (id) VALUES (:id)", map[string]any{"id": b.value}); err == nil {
						t.Errorf("NamedExec wrote %T %v", b.value, b.raw)
					}
					if n := db.Count(t, table); n != 0 {
						t.Fatalf("%d rows written", n)
					}
					if _, err := x.Exec(x.Rebind("INSERT INTO "+table+" (id) VALUES (?)"), b.raw); err != nil {
						t.Fatal(err)
					}
					if err := x.Get(k.Ptr(), "SELECT id FROM "+table); err == nil {
						t.Errorf("Get read %v as a %s", b.raw, k.Type)
					}
				})
			}
		})
	}
}

type required[T any] struct {
	ID T `validate:"required"`
}

func checkRequired[T any, P id[T]](t *testing.T, v *validator.Validate, k edgecase.Kind) {
	if err := v.Struct(required[T]{}); err == nil {
		t.Errorf("the zero %s passed `required`", k.Type)
	}
	if err := v.Struct(required[T]{ID: parse[T, P](t, "")}); err == nil {
		t.Errorf("a %s read from empty text passed `required`", k.Type)
	}
	if err := v.Struct(required[T]{ID: parse[T, P](t, k.New(t))}); err != nil {
		t.Errorf("a new %s failed `required`: %v", k.Type, err)
	}
}

// TestValidatorRequired: go-playground/validator's `required` refuses the zero ID of every
// kind, which is also what empty text reads as, and passes a new one.
func TestValidatorRequired(t *testing.T) {
	v := validator.New()
	for _, c := range []struct {
		kind string
		run  func(*testing.T, *validator.Validate, edgecase.Kind)
	}{
		{"snowflake", checkRequired[ids.UserID]},
		{"prefixed", checkRequired[ids.AccountID]},
		{"number", checkRequired[ids.OrderNo]},
		{"uuid7", checkRequired[ids.TraceID]},
		{"typeid", checkRequired[ids.InvoiceID]},
		{"objectid", checkRequired[ids.DocumentID]},
	} {
		t.Run(c.kind, func(t *testing.T) { c.run(t, v, edgecase.Named(t, c.kind)) })
	}
}
