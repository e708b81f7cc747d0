package uniq_test

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"testing"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/idgen/idgen/runtime/sqldb"
	"github.com/idgen/idgen/runtime/uniq"
)

// TestDetectDrivers: pgx's *pgconn.PgError and go-sql-driver/mysql's *MySQLError, the real
// types, which detection recognises by their package path (the look-alike drivers and the
// errors that are nobody's are tested in runtime/uniq).
func TestDetectDrivers(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want *uniq.Violation
	}{
		{"pgx unique", &pgconn.PgError{Code: "23505", ConstraintName: "users_email_key", TableName: "users", Detail: "Key (email)=(a) already exists."},
			&uniq.Violation{Driver: sqldb.Postgres, Constraint: "users_email_key", Table: "users", Columns: []string{"email"}}},
		{"pgx unique translated", &pgconn.PgError{Code: "23505", ConstraintName: "users_pkey", TableName: "users", Detail: "Schlüssel »(id)=(1)« existiert bereits."},
			&uniq.Violation{Driver: sqldb.Postgres, Constraint: "users_pkey", Table: "users"}},
		{"pgx foreign key", &pgconn.PgError{Code: "23503", ConstraintName: "users_parent_id_fkey"}, nil},
		{"pgx not null", &pgconn.PgError{Code: "23502"}, nil},
		{"pgx check", &pgconn.PgError{Code: "23514"}, nil},
		{"pgx exclusion", &pgconn.PgError{Code: "23P01"}, nil},
		{"mysql 1062", &mysql.MySQLError{Number: 1062, Message: "Duplicate entry '1' for key 'PRIMARY'"},
			&uniq.Violation{Driver: sqldb.MySQL, Constraint: "PRIMARY", PrimaryKey: true}},
		{"mysql 1586", &mysql.MySQLError{Number: 1586, Message: "Duplicate entry 'a' for key 'users.users_email_key'"},
			&uniq.Violation{Driver: sqldb.MySQL, Constraint: "users_email_key", Table: "users"}},
		{"mysql translated", &mysql.MySQLError{Number: 1062, Message: "Doppelter Eintrag '1' für Schlüssel 'PRIMARY'"},
			&uniq.Violation{Driver: sqldb.MySQL}},
		{"mysql foreign key", &mysql.MySQLError{Number: 1452}, nil},
		{"mysql restrict", &mysql.MySQLError{Number: 1451}, nil},
		{"mysql null", &mysql.MySQLError{Number: 1048}, nil},
		{"mysql no default", &mysql.MySQLError{Number: 1364}, nil},
		{"mysql check", &mysql.MySQLError{Number: 3819}, nil},
		{"mariadb check", &mysql.MySQLError{Number: 4025}, nil},
		{"mysql other", &mysql.MySQLError{Number: 1146, Message: "Duplicate entry '1' for key 'PRIMARY'"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := uniq.As(tc.err)
			if ok != (tc.want != nil) || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("As = %+v, %v; want %+v", got, ok, tc.want)
			}
			if uniq.Is(tc.err) != ok {
				t.Errorf("Is = %v, As ok = %v", !ok, ok)
			}
		})
	}
}

func TestDuplicateError(t *testing.T) {
	driver := &pgconn.PgError{Code: "23505", ConstraintName: "users_email_key", TableName: "users", Detail: "Key (email)=(a) already exists."}
	wrapped := fmt.Errorf("create user: %w", driver)
	err := uniq.Wrap(wrapped)

	dup, ok := errors.AsType[*uniq.DuplicateError](err)
	if !ok {
		t.Fatalf("Wrap(%v) = %T, want *DuplicateError", wrapped, err)
	}
	if want := `uniq: duplicate key: unique constraint "users_email_key" on table "users" (email)`; dup.Error() != want {
		t.Errorf("Error() = %q, want %q", dup.Error(), want)
	}
	if !errors.Is(err, uniq.ErrDuplicate) || errors.Is(wrapped, uniq.ErrDuplicate) {
		t.Error("errors.Is(ErrDuplicate) wrong")
	}
	if pg, ok := errors.AsType[*pgconn.PgError](err); !ok || pg != driver {
		t.Error("DuplicateError does not unwrap to the driver error")
	}
	if again := uniq.Wrap(fmt.Errorf("again: %w", err)); !errors.Is(again, uniq.ErrDuplicate) || errors.Unwrap(again) != err {
		t.Errorf("Wrap wrapped a DuplicateError twice: %v", again)
	}
	if v, ok := uniq.As(fmt.Errorf("outer: %w", err)); !ok || v.Constraint != "users_email_key" {
		t.Errorf("As through a DuplicateError = %+v, %v", v, ok)
	}
	// As hands out copies.
	v, _ := uniq.As(err)
	v.Columns[0] = "changed"
	if dup.Columns[0] != "email" {
		t.Error("As shares Columns with the DuplicateError")
	}

	for _, tc := range []struct {
		v    uniq.Violation
		err  error
		want string
	}{
		{uniq.Violation{Driver: sqldb.MySQL, Constraint: "PRIMARY", PrimaryKey: true}, nil, `uniq: duplicate key: primary key "PRIMARY"`},
		{uniq.Violation{Driver: sqldb.SQLite, Table: "users", Columns: []string{"tenant", "login"}}, nil, `uniq: duplicate key: unique constraint on table "users" (tenant, login)`},
		{uniq.Violation{Driver: sqldb.MySQL}, errors.New("Doppelter Eintrag"), `uniq: duplicate key: unique constraint: Doppelter Eintrag`},
	} {
		if got := (&uniq.DuplicateError{Violation: tc.v, Err: tc.err}).Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
	}
}

func TestWrapOthers(t *testing.T) {
	if uniq.Wrap(nil) != nil {
		t.Error("Wrap(nil) != nil")
	}
	fk := fmt.Errorf("insert: %w", &pgconn.PgError{Code: "23503"})
	if got := uniq.Wrap(fk); got != fk {
		t.Errorf("Wrap(foreign key) = %v, want it unchanged", got)
	}
	if !uniq.Is(fmt.Errorf("x: %w", uniq.ErrDuplicate)) {
		t.Error("Is(wrapped ErrDuplicate) = false")
	}
}

func TestJoined(t *testing.T) {
	// errors.Join and multi-%w trees are searched like errors.As does.
	dup := &mysql.MySQLError{Number: 1062, Message: "Duplicate entry '1' for key 'PRIMARY'"}
	for _, err := range []error{
		errors.Join(io.EOF, &mysql.MySQLError{Number: 1452}, dup),
		fmt.Errorf("%w: %w", errors.New("gorm: duplicated key not allowed"), dup),
	} {
		if v, ok := uniq.As(err); !ok || v.Constraint != "PRIMARY" {
			t.Errorf("As(%v) = %+v, %v", err, v, ok)
		}
	}
}
