package uniq

import (
	"errors"
	"io"
	"reflect"
	"testing"

	"github.com/idgen/idgen/runtime/sqldb"
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
// SQLite error (runtime/internal/sqlerr tests the ExtendedCode branch).
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

// TestDetect covers the drivers whose errors can be stood in for here (lib/pq by its
// methods and fields) and the errors that are nobody's unique violation. The pgx and
// go-sql-driver/mysql types, recognised by their package path, are tested with the real
// types in the integration module (integration/uniq).
func TestDetect(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want *Violation
	}{
		{"nil", nil, nil},
		{"other", io.EOF, nil},
		{"pq unique", &pqError{map[byte]string{'C': "23505", 'n': "users_email_key", 't': "users", 'D': "Key (email)=(a) already exists."}},
			&Violation{Driver: sqldb.Postgres, Constraint: "users_email_key", Table: "users", Columns: []string{"email"}}},
		{"pq foreign key", &pqError{map[byte]string{'C': "23503", 'n': "users_parent_id_fkey"}}, nil},
		{"pq fields unique", &pqErrorFields{Code: "23505", Constraint: "k", Table: "t", Detail: "Key (a, b)=(1, 2) already exists."},
			&Violation{Driver: sqldb.Postgres, Constraint: "k", Table: "t", Columns: []string{"a", "b"}}},
		{"pq fields check", &pqErrorFields{Code: "23514"}, nil},
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
