package uniq_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
	"github.com/idgen/idgen/integration/internal/testdb"
	"github.com/idgen/idgen/runtime/sqldb"
	"github.com/idgen/idgen/runtime/uniq"
	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib"
	gormpostgres "gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
	sqlite "modernc.org/sqlite"
)

// The schema every server test uses: each kind of key and each kind of constraint that
// is not one, written in the SQL that PostgreSQL, MariaDB and SQLite all accept (MySQL
// and MariaDB ignore REFERENCES on a column, so constraints are declared on the table).
const schema = `
CREATE TABLE parents (id BIGINT PRIMARY KEY);
CREATE TABLE users (
	id BIGINT PRIMARY KEY,
	email VARCHAR(100) NOT NULL,
	tenant INT NOT NULL,
	login VARCHAR(100) NOT NULL,
	nick VARCHAR(100),
	parent_id BIGINT,
	age INT,
	CONSTRAINT users_email_key UNIQUE (email),
	CONSTRAINT users_tenant_login_key UNIQUE (tenant, login),
	CONSTRAINT users_parent_fkey FOREIGN KEY (parent_id) REFERENCES parents (id),
	CONSTRAINT users_age_check CHECK (age >= 0)
);
CREATE UNIQUE INDEX idx_users_nick ON users (nick);
INSERT INTO parents (id) VALUES (1);
INSERT INTO users (id, email, tenant, login, nick, parent_id, age) VALUES (1, 'al@example.com', 1, 'al', 'Al', 1, 30);
`

// insert returns an INSERT of a user that violates nothing, except where set overrides a
// column with an SQL literal or omit leaves one out.
func insert(set map[string]string, omit ...string) string {
	cols := []string{"id", "email", "tenant", "login", "nick", "parent_id", "age"}
	vals := map[string]string{"id": "2", "email": "'bo@example.com'", "tenant": "1", "login": "'bo'", "nick": "'Bo'", "parent_id": "1", "age": "20"}
	for k, v := range set {
		vals[k] = v
	}
	var names, values []string
	for _, c := range cols {
		if !slices.Contains(omit, c) {
			names = append(names, c)
			values = append(values, vals[c])
		}
	}
	return "INSERT INTO users (" + strings.Join(names, ", ") + ") VALUES (" + strings.Join(values, ", ") + ")"
}

// A serverCase is one statement, the driver code it must fail with (proving the case
// tests what it says), and the violation expected, nil for none.
type serverCase struct {
	name string
	stmt string
	code string
	want *uniq.Violation
}

// cases lists the statements of the shared schema; the per-driver tables fill in codes
// and expectations by name.
var cases = []struct{ name, stmt string }{
	{"primary key", insert(map[string]string{"id": "1"})},
	{"unique constraint", insert(map[string]string{"email": "'al@example.com'"})},
	{"unique constraint two columns", insert(map[string]string{"login": "'al'"})},
	{"unique index", insert(map[string]string{"nick": "'Al'"})},
	{"foreign key insert", insert(map[string]string{"parent_id": "99"})},
	{"foreign key delete", "DELETE FROM parents WHERE id = 1"},
	{"not null", insert(map[string]string{"email": "NULL"})},
	{"not null omitted", insert(nil, "email")},
	{"check", insert(map[string]string{"age": "-1"})},
	{"missing table", "INSERT INTO nowhere (id) VALUES (1)"},
}

// expect joins the statements with a driver's expectations.
func expect(t *testing.T, want map[string]serverCase) []serverCase {
	t.Helper()
	var out []serverCase
	for _, c := range cases {
		w, ok := want[c.name]
		if !ok {
			t.Fatalf("no expectation for %q", c.name)
		}
		w.name, w.stmt = c.name, c.stmt
		out = append(out, w)
	}
	return out
}

// driverCode returns the driver's own code for err: SQLSTATE, error number or extended
// result code.
func driverCode(err error) string {
	if e, ok := errors.AsType[*pgconn.PgError](err); ok {
		return e.Code
	}
	if e, ok := errors.AsType[*mysql.MySQLError](err); ok {
		return strconv.Itoa(int(e.Number))
	}
	if e, ok := errors.AsType[*sqlite.Error](err); ok {
		return strconv.Itoa(e.Code())
	}
	return fmt.Sprintf("%T", err)
}

// run executes each case and checks detection on the error as returned, wrapped with %w,
// and wrapped by Wrap.
func run(t *testing.T, exec func(stmt string) error, cs []serverCase) {
	for _, c := range cs {
		t.Run(c.name, func(t *testing.T) {
			raw := exec(c.stmt)
			if raw == nil {
				t.Fatalf("%s: no error", c.stmt)
			}
			if got := driverCode(raw); got != c.code {
				t.Fatalf("%s: driver code %s, want %s: %v", c.stmt, got, c.code, raw)
			}
			check(t, raw, c.want)
		})
	}
}

func check(t *testing.T, raw error, want *uniq.Violation) {
	t.Helper()
	err := fmt.Errorf("create user: %w", raw)
	got, ok := uniq.As(err)
	if ok != (want != nil) || !reflect.DeepEqual(got, want) {
		t.Fatalf("As(%v) = %+v, %v; want %+v", raw, got, ok, want)
	}
	if uniq.Is(err) != ok || uniq.Is(raw) != ok {
		t.Errorf("Is disagrees with As (%v)", ok)
	}
	wrapped := uniq.Wrap(err)
	if want == nil {
		if wrapped != err {
			t.Errorf("Wrap changed a non-duplicate: %v", wrapped)
		}
		if errors.Is(wrapped, uniq.ErrDuplicate) {
			t.Error("a non-duplicate matches ErrDuplicate")
		}
		t.Logf("not a duplicate: %v", raw)
		return
	}
	if !errors.Is(wrapped, uniq.ErrDuplicate) {
		t.Errorf("Wrap(%v) does not match ErrDuplicate", err)
	}
	dup, ok := errors.AsType[*uniq.DuplicateError](fmt.Errorf("outer: %w", wrapped))
	if !ok || !reflect.DeepEqual(dup.Violation, *want) {
		t.Fatalf("errors.As(*DuplicateError) = %+v, %v", dup, ok)
	}
	if !errors.Is(wrapped, raw) {
		t.Error("DuplicateError does not unwrap to the driver error")
	}
	t.Logf("%v\n\tdriver: %v", wrapped, raw)
}

func TestPostgres(t *testing.T) {
	dsn := testdb.Postgres(t, "uniq")
	db := openDB(t, "pgx", dsn)
	mustExec(t, db, schema)
	run(t, func(stmt string) error { _, err := db.Exec(stmt); return err }, expect(t, postgresWant))
}

// postgresWant is also what lib/pq reports, from the same protocol fields.
var postgresWant = map[string]serverCase{
	"primary key":                   {code: "23505", want: &uniq.Violation{Driver: sqldb.Postgres, Constraint: "users_pkey", Table: "users", Columns: []string{"id"}}},
	"unique constraint":             {code: "23505", want: &uniq.Violation{Driver: sqldb.Postgres, Constraint: "users_email_key", Table: "users", Columns: []string{"email"}}},
	"unique constraint two columns": {code: "23505", want: &uniq.Violation{Driver: sqldb.Postgres, Constraint: "users_tenant_login_key", Table: "users", Columns: []string{"tenant", "login"}}},
	"unique index":                  {code: "23505", want: &uniq.Violation{Driver: sqldb.Postgres, Constraint: "idx_users_nick", Table: "users", Columns: []string{"nick"}}},
	"foreign key insert":            {code: "23503"},
	"foreign key delete":            {code: "23503"},
	"not null":                      {code: "23502"},
	"not null omitted":              {code: "23502"},
	"check":                         {code: "23514"},
	"missing table":                 {code: "42P01"},
}

// TestPostgresNames covers what the shared schema does not: quoted identifiers and a key
// on an expression, which names an index but no columns.
func TestPostgresNames(t *testing.T) {
	dsn := testdb.Postgres(t, "uniq_names")
	db := openDB(t, "pgx", dsn)
	mustExec(t, db, `
CREATE TABLE "Accounts" ("ID" BIGINT PRIMARY KEY, "Handle" TEXT NOT NULL);
CREATE UNIQUE INDEX "Accounts_lower_handle" ON "Accounts" (lower("Handle"));
INSERT INTO "Accounts" VALUES (1, 'Al');`)
	run(t, func(stmt string) error { _, err := db.Exec(stmt); return err }, []serverCase{
		{"quoted primary key", `INSERT INTO "Accounts" VALUES (1, 'Bo')`, "23505",
			&uniq.Violation{Driver: sqldb.Postgres, Constraint: "Accounts_pkey", Table: "Accounts", Columns: []string{"ID"}}},
		{"expression index", `INSERT INTO "Accounts" VALUES (2, 'AL')`, "23505",
			&uniq.Violation{Driver: sqldb.Postgres, Constraint: "Accounts_lower_handle", Table: "Accounts"}},
	})
}

// nonEnglish lists lc_messages values to try; the server's own libc collations are tried
// first, as they name the locales it has.
var nonEnglish = []string{"de_DE.UTF-8", "de_DE.utf8", "de_DE", "fr_FR.UTF-8", "es_ES.UTF-8", "ru_RU.UTF-8", "ja_JP.UTF-8"}

// TestPostgresLocalized checks that detection and names survive translated messages; only
// Columns, which comes from the message's Detail, is lost.
func TestPostgresLocalized(t *testing.T) {
	dsn := testdb.Postgres(t, "uniq_locale")
	db := openDB(t, "pgx", dsn)
	mustExec(t, db, schema)
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()

	var candidates []string
	rows, err := conn.QueryContext(ctx, `SELECT collname FROM pg_collation WHERE collprovider = 'c' AND collname NOT IN ('C', 'POSIX', 'default', 'ucs_basic') AND collname NOT ILIKE 'C.%' AND collname NOT ILIKE 'en%'`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		candidates = append(candidates, name)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	candidates = append(candidates, nonEnglish...)

	exec := func(stmt string) error { _, err := conn.ExecContext(ctx, stmt); return err }
	var tried []string
	for _, loc := range candidates {
		if exec("SET lc_messages TO '"+strings.ReplaceAll(loc, "'", "''")+"'") != nil {
			tried = append(tried, loc)
			continue
		}
		raw := exec(insert(map[string]string{"email": "'al@example.com'"}))
		pg, ok := errors.AsType[*pgconn.PgError](raw)
		if !ok {
			t.Fatalf("want a PgError, got %v", raw)
		}
		if strings.HasPrefix(pg.Message, "duplicate key value") {
			// The locale exists but the server has no translation for it.
			tried = append(tried, loc+" (untranslated)")
			continue
		}
		t.Logf("lc_messages %s: %s; DETAIL: %s", loc, pg.Message, pg.Detail)
		check(t, raw, &uniq.Violation{Driver: sqldb.Postgres, Constraint: "users_email_key", Table: "users"})
		// Codes are never translated, so the non-duplicates stay non-duplicates.
		check(t, exec(insert(map[string]string{"parent_id": "99"})), nil)
		return
	}
	t.Skipf("no non-English locale on the PostgreSQL server: SET lc_messages failed for %s, so messages could not be translated (the server needs a non-English OS locale, e.g. de_DE.UTF-8)", strings.Join(tried, ", "))
}

// TestPostgresGORM runs the driver through GORM, whose postgres dialector uses pgx; with
// TranslateError on, GORM wraps the PgError next to gorm.ErrDuplicatedKey and the
// violation is still found.
func TestPostgresGORM(t *testing.T) {
	dsn := testdb.Postgres(t, "uniq_gorm")
	type gormUser struct {
		ID    int64
		Email string `gorm:"not null;uniqueIndex:idx_gorm_users_email"`
	}
	for _, translate := range []bool{false, true} {
		t.Run(fmt.Sprintf("TranslateError=%v", translate), func(t *testing.T) {
			db, err := gorm.Open(gormpostgres.Open(dsn), &gorm.Config{Logger: logger.Discard, TranslateError: translate})
			if err != nil {
				t.Fatal(err)
			}
			sqlDB, err := db.DB()
			if err != nil {
				t.Fatal(err)
			}
			defer sqlDB.Close()
			if err := db.Migrator().DropTable(&gormUser{}); err != nil {
				t.Fatal(err)
			}
			if err := db.AutoMigrate(&gormUser{}); err != nil {
				t.Fatal(err)
			}
			if err := db.Create(&gormUser{ID: 1, Email: "al@example.com"}).Error; err != nil {
				t.Fatal(err)
			}
			err = db.Create(&gormUser{ID: 2, Email: "al@example.com"}).Error
			if translate && !errors.Is(err, gorm.ErrDuplicatedKey) {
				t.Errorf("TranslateError: %v is not gorm.ErrDuplicatedKey", err)
			}
			check(t, err, &uniq.Violation{Driver: sqldb.Postgres, Constraint: "idx_gorm_users_email", Table: "gorm_users", Columns: []string{"email"}})
			err = db.Create(&gormUser{ID: 1, Email: "bo@example.com"}).Error
			check(t, err, &uniq.Violation{Driver: sqldb.Postgres, Constraint: "gorm_users_pkey", Table: "gorm_users", Columns: []string{"id"}})
			err = db.Create(&gormUser{ID: 3}).Error // empty email is allowed by NOT NULL
			if err != nil {
				t.Fatal(err)
			}
			err = db.Exec("INSERT INTO gorm_users (id, email) VALUES (4, NULL)").Error
			check(t, err, nil)
		})
	}
}

func TestMySQL(t *testing.T) {
	dsn := testdb.MySQL(t, "uniq")
	db := openDB(t, "mysql", dsn+mysqlParams(dsn))
	mustExec(t, db, schema)
	run(t, func(stmt string) error { _, err := db.Exec(stmt); return err }, expect(t, mysqlWant(db)))
}

// mysqlParams enables multi-statement schemas.
func mysqlParams(dsn string) string {
	if strings.Contains(dsn, "?") {
		return "&multiStatements=true"
	}
	return "?multiStatements=true"
}

// mysqlWant returns the expectations for the server behind db: MariaDB names the key
// alone, MySQL 8 as table.key; their CHECK error numbers differ.
func mysqlWant(db *sql.DB) map[string]serverCase {
	var version string
	if err := db.QueryRow("SELECT VERSION()").Scan(&version); err != nil {
		panic(err)
	}
	table, check := "", "3819"
	if strings.Contains(strings.ToLower(version), "mariadb") {
		check = "4025"
	} else {
		table = "users"
	}
	v := func(key string) *uniq.Violation {
		return &uniq.Violation{Driver: sqldb.MySQL, Constraint: key, Table: table, PrimaryKey: key == "PRIMARY"}
	}
	return map[string]serverCase{
		"primary key":                   {code: "1062", want: v("PRIMARY")},
		"unique constraint":             {code: "1062", want: v("users_email_key")},
		"unique constraint two columns": {code: "1062", want: v("users_tenant_login_key")},
		"unique index":                  {code: "1062", want: v("idx_users_nick")},
		"foreign key insert":            {code: "1452"},
		"foreign key delete":            {code: "1451"},
		"not null":                      {code: "1048"},
		"not null omitted":              {code: "1364"},
		"check":                         {code: check},
		"missing table":                 {code: "1146"},
	}
}

// TestMySQLLocalized checks detection under MariaDB's translated messages, which need no
// OS locale: the key name is lost with the English shape, the violation is not.
func TestMySQLLocalized(t *testing.T) {
	dsn := testdb.MySQL(t, "uniq_locale")
	db := openDB(t, "mysql", dsn+mysqlParams(dsn))
	db.SetMaxOpenConns(1) // lc_messages is per session
	mustExec(t, db, schema)
	if _, err := db.Exec("SET lc_messages = 'de_DE'"); err != nil {
		t.Skipf("SET lc_messages = 'de_DE' failed, messages could not be translated: %v", err)
	}
	raw := func() error { _, err := db.Exec(insert(map[string]string{"id": "1"})); return err }()
	t.Logf("lc_messages de_DE: %v", raw)
	if e, ok := errors.AsType[*mysql.MySQLError](raw); !ok || strings.HasPrefix(e.Message, "Duplicate entry") {
		t.Skipf("the server did not translate: %v", raw)
	}
	check(t, raw, &uniq.Violation{Driver: sqldb.MySQL})
	_, err := db.Exec(insert(map[string]string{"parent_id": "99"}))
	check(t, err, nil)
}

func TestSQLite(t *testing.T) {
	db := openDB(t, "sqlite", "file:"+testdb.SQLitePath(t)+"?_pragma=foreign_keys(1)")
	mustExec(t, db, schema)
	run(t, func(stmt string) error { _, err := db.Exec(stmt); return err }, expect(t, sqliteWant))
}

var sqliteWant = map[string]serverCase{
	"primary key":                   {code: "1555", want: &uniq.Violation{Driver: sqldb.SQLite, Table: "users", Columns: []string{"id"}, PrimaryKey: true}},
	"unique constraint":             {code: "2067", want: &uniq.Violation{Driver: sqldb.SQLite, Table: "users", Columns: []string{"email"}}},
	"unique constraint two columns": {code: "2067", want: &uniq.Violation{Driver: sqldb.SQLite, Table: "users", Columns: []string{"tenant", "login"}}},
	"unique index":                  {code: "2067", want: &uniq.Violation{Driver: sqldb.SQLite, Table: "users", Columns: []string{"nick"}}},
	"foreign key insert":            {code: "787"},
	"foreign key delete":            {code: "787"},
	"not null":                      {code: "1299"},
	"not null omitted":              {code: "1299"},
	"check":                         {code: "275"},
	"missing table":                 {code: "1"},
}

// TestSQLiteNames covers a text primary key (a unique index underneath, still reported as
// the primary key) and a key on an expression, for which SQLite names the index.
func TestSQLiteNames(t *testing.T) {
	db := openDB(t, "sqlite", testdb.SQLitePath(t))
	mustExec(t, db, `
CREATE TABLE accounts (code TEXT PRIMARY KEY, handle TEXT NOT NULL);
CREATE UNIQUE INDEX idx_accounts_lower_handle ON accounts (lower(handle));
INSERT INTO accounts VALUES ('a', 'Al');`)
	run(t, func(stmt string) error { _, err := db.Exec(stmt); return err }, []serverCase{
		{"text primary key", "INSERT INTO accounts VALUES ('a', 'Bo')", "1555",
			&uniq.Violation{Driver: sqldb.SQLite, Table: "accounts", Columns: []string{"code"}, PrimaryKey: true}},
		{"expression index", "INSERT INTO accounts VALUES ('b', 'AL')", "2067",
			&uniq.Violation{Driver: sqldb.SQLite, Constraint: "idx_accounts_lower_handle"}},
	})
}

func openDB(t *testing.T, driver, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func mustExec(t *testing.T, db *sql.DB, stmts string) {
	t.Helper()
	if _, err := db.Exec(stmts); err != nil {
		t.Fatal(err)
	}
}
