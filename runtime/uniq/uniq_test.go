package uniq

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"testing"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"
)

func TestParsePostgresDetail(t *testing.T) {
	for _, tc := range postgresDetails {
		if got := parsePostgresDetail(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("parsePostgresDetail(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// postgresDetails also seeds FuzzParsePostgresDetail.
var postgresDetails = []struct {
	in   string
	want []string
}{
	{"Key (email)=(a@example.com) already exists.", []string{"email"}},
	{"Key (tenant, login)=(1, al) already exists.", []string{"tenant", "login"}},
	{`Key ("Code", "a""b", x_1)=(c, d, 1) already exists.`, []string{"Code", `a"b`, "x_1"}},
	{"Key (id)=(1) already exists.", []string{"id"}},
	{"Key (a)=(x)=(y, z) already exists.", []string{"a"}},
	// Keys on expressions name no columns.
	{"Key (lower(handle))=(al) already exists.", nil},
	{"Key (a, (b + 1))=(1, 2) already exists.", nil},
	// Translated details (PostgreSQL's de and fr catalogs) are not read.
	{"Schlüssel »(email)=(a@example.com)« existiert bereits.", nil},
	{"La clé « (email)=(a@example.com) » existe déjà.", nil},
	{"", nil},
	{"Key ()=() already exists.", nil},
	{`Key ("")=(1) already exists.`, nil},
	{`Key ("a)=(1) already exists.`, nil},
	{"Key (1a)=(1) already exists.", nil},
	{"Key (a)=(1) already exists", nil},
	{"Key (a)", nil},
}

func TestParseMySQLKey(t *testing.T) {
	for _, tc := range mysqlMessages {
		table, key := parseMySQLKey(tc.in)
		if table != tc.table || key != tc.key {
			t.Errorf("parseMySQLKey(%q) = %q, %q; want %q, %q", tc.in, table, key, tc.table, tc.key)
		}
	}
}

// mysqlMessages also seeds FuzzParseMySQLKey.
var mysqlMessages = []struct{ in, table, key string }{
	{"Duplicate entry 'a@example.com' for key 'users_email_key'", "", "users_email_key"}, // MariaDB
	{"Duplicate entry '1' for key 'PRIMARY'", "", "PRIMARY"},
	{"Duplicate entry '1-al' for key 'users.users_tenant_login_key'", "users", "users_tenant_login_key"}, // MySQL 8
	{"Duplicate entry '1' for key 'users.PRIMARY'", "users", "PRIMARY"},
	{"Duplicate entry 'x' for key 'y' for key 'k'", "", "k"},
	{"Duplicate entry '' for key 'k'", "", "k"},
	{"Duplicate entry 'x' for key ''", "", ""},
	{"Duplicate entry 'x' for key '", "", ""},
	{"Duplicate entry ' for key '", "", ""},
	{"Duplicate entry '", "", ""},
	{"Doppelter Eintrag '1' für Schlüssel 'PRIMARY'", "", ""}, // MariaDB under lc_messages=de_DE
	{"Duplicate entry 'x' for key '.k'", "", ".k"},
	{"", "", ""},
}

func TestParseSQLiteMessage(t *testing.T) {
	for _, tc := range sqliteMessages {
		table, cols, index := parseSQLiteMessage(tc.in)
		if table != tc.table || !reflect.DeepEqual(cols, tc.cols) || index != tc.index {
			t.Errorf("parseSQLiteMessage(%q) = %q, %q, %q; want %q, %q, %q", tc.in, table, cols, index, tc.table, tc.cols, tc.index)
		}
	}
}

// sqliteMessages also seeds FuzzParseSQLiteMessage.
var sqliteMessages = []struct {
	in, table string
	cols      []string
	index     string
}{
	{"UNIQUE constraint failed: users.email", "users", []string{"email"}, ""},                                                   // mattn
	{"constraint failed: UNIQUE constraint failed: users.tenant, users.login (2067)", "users", []string{"tenant", "login"}, ""}, // modernc
	{"constraint failed: UNIQUE constraint failed: users.id (1555)", "users", []string{"id"}, ""},
	{"UNIQUE constraint failed: index 'idx_users_lower_handle'", "", nil, "idx_users_lower_handle"},
	{"constraint failed: UNIQUE constraint failed: index 'idx' (2067)", "", nil, "idx"},
	{"UNIQUE constraint failed: index ''", "", nil, ""},
	{"UNIQUE constraint failed: a.x, b.y", "", nil, ""},
	{"UNIQUE constraint failed: x", "", nil, ""},
	{"UNIQUE constraint failed: ", "", nil, ""},
	{"NOT NULL constraint failed: users.email", "", nil, ""},
	{"", "", nil, ""},
}

// pqError has the methods of lib/pq's *pq.Error that detection relies on, SQLState and
// the legacy Get: a stand-in, acceptable here only because lib/pq is not a dependency of
// this module, so the real type cannot be produced in its tests.
type pqError struct{ fields map[byte]string }

func (e *pqError) Error() string     { return "pq: " + e.fields['M'] }
func (e *pqError) SQLState() string  { return e.fields['C'] }
func (e *pqError) Get(k byte) string { return e.fields[k] }

// pqErrorFields stands in for lib/pq versions that dropped Get and expose the fields only.
type pqErrorFields struct {
	Code       string
	Constraint string
	Table      string
	Detail     string
}

func (e *pqErrorFields) Error() string    { return "pq: error" }
func (e *pqErrorFields) SQLState() string { return e.Code }

// mattnError has the shape of mattn/go-sqlite3's Error: a value type with integer code
// fields. Its package path is this package's, not mattn's: TestDetect shows it is nobody's
// SQLite error (internal/sqlerr tests the ExtendedCode branch).
type mattnError struct {
	Code         int
	ExtendedCode int
	err          string
}

func (e mattnError) Error() string { return e.err }

// codeError has a Code() int method but lives outside any SQLite driver: not SQLite.
type codeError struct{ code int }

func (e *codeError) Error() string { return "code" }
func (e *codeError) Code() int     { return e.code }

func TestDetect(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want *Violation
	}{
		{"nil", nil, nil},
		{"other", io.EOF, nil},
		{"pgx unique", &pgconn.PgError{Code: "23505", ConstraintName: "users_email_key", TableName: "users", Detail: "Key (email)=(a) already exists."},
			&Violation{Driver: Postgres, Constraint: "users_email_key", Table: "users", Columns: []string{"email"}}},
		{"pgx unique translated", &pgconn.PgError{Code: "23505", ConstraintName: "users_pkey", TableName: "users", Detail: "Schlüssel »(id)=(1)« existiert bereits."},
			&Violation{Driver: Postgres, Constraint: "users_pkey", Table: "users"}},
		{"pgx foreign key", &pgconn.PgError{Code: "23503", ConstraintName: "users_parent_id_fkey"}, nil},
		{"pgx not null", &pgconn.PgError{Code: "23502"}, nil},
		{"pgx check", &pgconn.PgError{Code: "23514"}, nil},
		{"pgx exclusion", &pgconn.PgError{Code: "23P01"}, nil},
		{"pq unique", &pqError{map[byte]string{'C': "23505", 'n': "users_email_key", 't': "users", 'D': "Key (email)=(a) already exists."}},
			&Violation{Driver: Postgres, Constraint: "users_email_key", Table: "users", Columns: []string{"email"}}},
		{"pq foreign key", &pqError{map[byte]string{'C': "23503", 'n': "users_parent_id_fkey"}}, nil},
		{"pq fields unique", &pqErrorFields{Code: "23505", Constraint: "k", Table: "t", Detail: "Key (a, b)=(1, 2) already exists."},
			&Violation{Driver: Postgres, Constraint: "k", Table: "t", Columns: []string{"a", "b"}}},
		{"pq fields check", &pqErrorFields{Code: "23514"}, nil},
		{"mysql 1062", &mysql.MySQLError{Number: 1062, Message: "Duplicate entry '1' for key 'PRIMARY'"},
			&Violation{Driver: MySQL, Constraint: "PRIMARY", PrimaryKey: true}},
		{"mysql 1586", &mysql.MySQLError{Number: 1586, Message: "Duplicate entry 'a' for key 'users.users_email_key'"},
			&Violation{Driver: MySQL, Constraint: "users_email_key", Table: "users"}},
		{"mysql translated", &mysql.MySQLError{Number: 1062, Message: "Doppelter Eintrag '1' für Schlüssel 'PRIMARY'"},
			&Violation{Driver: MySQL}},
		{"mysql foreign key", &mysql.MySQLError{Number: 1452}, nil},
		{"mysql restrict", &mysql.MySQLError{Number: 1451}, nil},
		{"mysql null", &mysql.MySQLError{Number: 1048}, nil},
		{"mysql no default", &mysql.MySQLError{Number: 1364}, nil},
		{"mysql check", &mysql.MySQLError{Number: 3819}, nil},
		{"mariadb check", &mysql.MySQLError{Number: 4025}, nil},
		{"mysql other", &mysql.MySQLError{Number: 1146, Message: "Duplicate entry '1' for key 'PRIMARY'"}, nil},
		// A Code() int outside a SQLite driver is not a SQLite error, whatever its value.
		{"code 2067 not sqlite", &codeError{2067}, nil},
		// Without the mattn package path the mattn-shaped type is nobody's SQLite error.
		{"mattn shape elsewhere", mattnError{Code: 19, ExtendedCode: 2067, err: "UNIQUE constraint failed: t.a"}, nil},
		// Text alone is never enough.
		{"text only", errors.New("UNIQUE constraint failed: t.a"), nil},
		{"text only pg", errors.New(`ERROR: duplicate key value violates unique constraint "k" (SQLSTATE 23505)`), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := As(tc.err)
			if ok != (tc.want != nil) || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("As = %+v, %v; want %+v", got, ok, tc.want)
			}
			if Is(tc.err) != ok {
				t.Errorf("Is = %v, As ok = %v", !ok, ok)
			}
		})
	}
}

func TestDuplicateError(t *testing.T) {
	driver := &pgconn.PgError{Code: "23505", ConstraintName: "users_email_key", TableName: "users", Detail: "Key (email)=(a) already exists."}
	wrapped := fmt.Errorf("create user: %w", driver)
	err := Wrap(wrapped)

	dup, ok := errors.AsType[*DuplicateError](err)
	if !ok {
		t.Fatalf("Wrap(%v) = %T, want *DuplicateError", wrapped, err)
	}
	if want := `uniq: duplicate key: unique constraint "users_email_key" on table "users" (email)`; dup.Error() != want {
		t.Errorf("Error() = %q, want %q", dup.Error(), want)
	}
	if !errors.Is(err, ErrDuplicate) || errors.Is(wrapped, ErrDuplicate) {
		t.Error("errors.Is(ErrDuplicate) wrong")
	}
	if pg, ok := errors.AsType[*pgconn.PgError](err); !ok || pg != driver {
		t.Error("DuplicateError does not unwrap to the driver error")
	}
	if again := Wrap(fmt.Errorf("again: %w", err)); !errors.Is(again, ErrDuplicate) || errors.Unwrap(again) != err {
		t.Errorf("Wrap wrapped a DuplicateError twice: %v", again)
	}
	if v, ok := As(fmt.Errorf("outer: %w", err)); !ok || v.Constraint != "users_email_key" {
		t.Errorf("As through a DuplicateError = %+v, %v", v, ok)
	}
	// As hands out copies.
	v, _ := As(err)
	v.Columns[0] = "changed"
	if dup.Columns[0] != "email" {
		t.Error("As shares Columns with the DuplicateError")
	}

	for _, tc := range []struct {
		v    Violation
		err  error
		want string
	}{
		{Violation{Driver: MySQL, Constraint: "PRIMARY", PrimaryKey: true}, nil, `uniq: duplicate key: primary key "PRIMARY"`},
		{Violation{Driver: SQLite, Table: "users", Columns: []string{"tenant", "login"}}, nil, `uniq: duplicate key: unique constraint on table "users" (tenant, login)`},
		{Violation{Driver: MySQL}, errors.New("Doppelter Eintrag"), `uniq: duplicate key: unique constraint: Doppelter Eintrag`},
	} {
		if got := (&DuplicateError{Violation: tc.v, Err: tc.err}).Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
	}
}

func TestWrapOthers(t *testing.T) {
	if Wrap(nil) != nil {
		t.Error("Wrap(nil) != nil")
	}
	fk := fmt.Errorf("insert: %w", &pgconn.PgError{Code: "23503"})
	if got := Wrap(fk); got != fk {
		t.Errorf("Wrap(foreign key) = %v, want it unchanged", got)
	}
	if !Is(fmt.Errorf("x: %w", ErrDuplicate)) {
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
		if v, ok := As(err); !ok || v.Constraint != "PRIMARY" {
			t.Errorf("As(%v) = %+v, %v", err, v, ok)
		}
	}
}
