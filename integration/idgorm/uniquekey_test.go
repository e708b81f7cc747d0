package idgorm_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/glebarez/sqlite"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/idgen/idgen/integration/internal/testdb"
	"github.com/idgen/idgen/plugins/idgorm"
	"github.com/idgen/idgen/runtime/snowflake"
)

// Request is the row of the models below, each on a table of its own whose unique
// indexes, if any, the tests make with raw SQL as a migration would, not with gorm tags.
type Request struct {
	ID         int64  `gorm:"primaryKey" idgen:"snowflake"`
	RequestKey string `gorm:"size:64"`
	Tenant     string `gorm:"size:64"`
	Amount     int64
}

func (r *Request) row() *Request { return r }

// row is a model of these tests; its Request holds the ID a test compares.
type row interface{ row() *Request }

// The models of the unique-key tests: one table each (see TableName), as the cases make
// their indexes.
type (
	ReqPlain    struct{ Request }
	ReqPair     struct{ Request }
	ReqRaw      struct{ Request }
	ReqTwo      struct{ Request }
	ReqPartial  struct{ Request }
	ReqNamed    struct{ Request }
	ReqMisnamed struct{ Request }
	ReqMissing  struct{ Request }
	ReqPath     struct{ Request }
	ReqInclude  struct{ Request }
	ReqDeferred struct{ Request }
	ReqExpr     struct{ Request }
	ReqPrefix   struct{ Request }
	ReqQual     struct{ Request }
	ReqBefore   struct{ Request }
)

// ReqTagged has its unique key from a gorm tag, which GORM's migrator names itself.
type ReqTagged struct {
	ID         int64  `gorm:"primaryKey" idgen:"snowflake"`
	RequestKey string `gorm:"size:64;unique"`
}

func (r *ReqTagged) row() *Request { return &Request{ID: r.ID, RequestKey: r.RequestKey} }

func (ReqPlain) TableName() string    { return "req_plain" }
func (ReqPair) TableName() string     { return "req_pair" }
func (ReqRaw) TableName() string      { return "req_raw" }
func (ReqTwo) TableName() string      { return "req_two" }
func (ReqPartial) TableName() string  { return "req_partial" }
func (ReqNamed) TableName() string    { return "req_named" }
func (ReqMisnamed) TableName() string { return "req_misnamed" }
func (ReqMissing) TableName() string  { return "req_missing" }
func (ReqPath) TableName() string     { return "req_path" }
func (ReqInclude) TableName() string  { return "req_include" }
func (ReqDeferred) TableName() string { return "req_deferred" }
func (ReqExpr) TableName() string     { return "req_expr" }
func (ReqPrefix) TableName() string   { return "req_prefix" }
func (ReqTagged) TableName() string   { return "req_tagged" }
func (ReqQual) TableName() string     { return "req_qual" }
func (ReqBefore) TableName() string   { return "req_before" }

// TestCreateOrGetUniqueKey: CreateOrGet works only on a key the database holds a unique
// index on, exactly; otherwise it inserts nothing and says which index to create.
func TestCreateOrGetUniqueKey(t *testing.T) {
	cases := []struct {
		name    string
		new     func(key string) row
		sql     []string // the migration, after AutoMigrate
		key     []string
		opts    []idgorm.Option
		on      []string // the dialects that have the index's feature; nil: all
		wantErr error    // nil: the key works
		// wantMsg are parts of the error's message.
		wantMsg []string
		// existing: a row holds the key before the first CreateOrGet, which is a hit.
		existing bool
	}{
		{
			name:    "no index",
			new:     func(k string) row { return &ReqPlain{Request{RequestKey: k, Tenant: "t"}} },
			key:     []string{"RequestKey"},
			wantErr: idgorm.ErrNoUniqueKey,
			wantMsg: []string{"model ReqPlain", `table "req_plain"`, "create a unique index on exactly (request_key)"},
		},
		{
			name:    "key is one column of a two-column index",
			new:     func(k string) row { return &ReqPair{Request{RequestKey: k, Tenant: "t"}} },
			sql:     []string{"CREATE UNIQUE INDEX req_pair_key_tenant ON req_pair (request_key, tenant)"},
			key:     []string{"RequestKey"},
			wantErr: idgorm.ErrNoUniqueKey,
			wantMsg: []string{`"req_pair_key_tenant" is on (request_key, tenant)`, "create a unique index on exactly (request_key)"},
		},
		{
			name: "index made by a migration",
			new:  func(k string) row { return &ReqRaw{Request{RequestKey: k, Tenant: "t"}} },
			sql:  []string{"CREATE UNIQUE INDEX req_raw_key ON req_raw (request_key)"},
			key:  []string{"RequestKey"},
		},
		{
			name:     "index made by a migration, row there before the first call",
			new:      func(k string) row { return &ReqBefore{Request{RequestKey: k, Tenant: "t"}} },
			sql:      []string{"CREATE UNIQUE INDEX req_before_key ON req_before (request_key)"},
			key:      []string{"RequestKey"},
			existing: true,
		},
		{
			name: "two-column key, index in another order",
			new:  func(k string) row { return &ReqTwo{Request{RequestKey: k, Tenant: "t"}} },
			sql:  []string{"CREATE UNIQUE INDEX req_two_tenant_key ON req_two (tenant, request_key)"},
			key:  []string{"RequestKey", "tenant"},
		},
		{
			name:    "partial index",
			new:     func(k string) row { return &ReqPartial{Request{RequestKey: k, Tenant: "t"}} },
			sql:     []string{"CREATE UNIQUE INDEX req_partial_key ON req_partial (request_key) WHERE tenant <> ''"},
			key:     []string{"RequestKey"},
			on:      []string{"postgres", "sqlite"},
			wantErr: idgorm.ErrNoUniqueKey,
			wantMsg: []string{`"req_partial_key" is on (request_key) but partial`},
		},
		{
			name: "gorm unique tag",
			new:  func(k string) row { return &ReqTagged{RequestKey: k} },
			key:  []string{"RequestKey"},
		},
		{
			name: "index with INCLUDE columns",
			new:  func(k string) row { return &ReqInclude{Request{RequestKey: k, Tenant: "t"}} },
			sql:  []string{"CREATE UNIQUE INDEX req_include_key ON req_include (request_key) INCLUDE (tenant)"},
			key:  []string{"RequestKey"},
			on:   []string{"postgres"},
		},
		{
			name:    "deferrable constraint",
			new:     func(k string) row { return &ReqDeferred{Request{RequestKey: k, Tenant: "t"}} },
			sql:     []string{"ALTER TABLE req_deferred ADD CONSTRAINT req_deferred_key UNIQUE (request_key) DEFERRABLE"},
			key:     []string{"RequestKey"},
			on:      []string{"postgres"},
			wantErr: idgorm.ErrNoUniqueKey,
			wantMsg: []string{`"req_deferred_key" is on (request_key) but deferrable`},
		},
		{
			name:    "index on an expression",
			new:     func(k string) row { return &ReqExpr{Request{RequestKey: k, Tenant: "t"}} },
			sql:     []string{"CREATE UNIQUE INDEX req_expr_key ON req_expr (lower(request_key))"},
			key:     []string{"RequestKey"},
			on:      []string{"postgres", "sqlite"},
			wantErr: idgorm.ErrNoUniqueKey,
		},
		{
			name:    "index on a prefix",
			new:     func(k string) row { return &ReqPrefix{Request{RequestKey: k, Tenant: "t"}} },
			sql:     []string{"CREATE UNIQUE INDEX req_prefix_key ON req_prefix (request_key(8))"},
			key:     []string{"RequestKey"},
			on:      []string{"mysql"},
			wantErr: idgorm.ErrNoUniqueKey,
			wantMsg: []string{`"req_prefix_key" is on (request_key) but on a prefix`},
		},
		{
			name: "Index names it",
			new:  func(k string) row { return &ReqNamed{Request{RequestKey: k, Tenant: "t"}} },
			sql:  []string{"CREATE UNIQUE INDEX req_named_key ON req_named (request_key)"},
			key:  []string{"RequestKey"},
			opts: []idgorm.Option{idgorm.Index("req_named_key")},
		},
		{
			name:    "Index names another",
			new:     func(k string) row { return &ReqMisnamed{Request{RequestKey: k, Tenant: "t"}} },
			sql:     []string{"CREATE UNIQUE INDEX req_misnamed_key ON req_misnamed (request_key)"},
			key:     []string{"RequestKey"},
			opts:    []idgorm.Option{idgorm.Index("req_misnamed_old")},
			wantErr: idgorm.ErrNoUniqueKey,
			wantMsg: []string{`no unique index "req_misnamed_old" on exactly (request_key)`, `name "req_misnamed_key" in Index(...)`},
		},
	}
	for _, e := range databases(t, "gorm_key") {
		t.Run(e.name, func(t *testing.T) {
			db := e.db.WithContext(ctx(t))
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					if c.on != nil && !slices.Contains(c.on, e.name) {
						t.Skipf("%s cannot make this index", e.name)
					}
					model := c.new("")
					if err := db.AutoMigrate(model); err != nil {
						t.Fatal(err)
					}
					for _, q := range c.sql {
						if err := db.Exec(q).Error; err != nil {
							t.Fatalf("%s: %v", q, err)
						}
					}
					opts := append([]idgorm.Option{idgorm.Key(c.key...)}, c.opts...)
					// call runs CreateOrGet on a new row with the key, counting statements (n)
					// and lookups (l).
					call := func(key string) (r row, created bool, n, l int64, err error) {
						r = c.new(key)
						e.statements.Store(0)
						e.lookups.Store(0)
						created, err = idgorm.CreateOrGet(db, r, opts...)
						return r, created, e.statements.Load(), e.lookups.Load(), err
					}
					rows := func() int64 {
						var n int64
						if err := db.Model(model).Count(&n).Error; err != nil {
							t.Fatal(err)
						}
						return n
					}

					if c.wantErr != nil {
						// Refused every time (a refusal is not cached), with a lookup each time.
						for range 2 {
							_, created, n, l, err := call("k-1")
							if !errors.Is(err, c.wantErr) || created {
								t.Fatalf("created %v, err %v; want %v", created, err, c.wantErr)
							}
							if n != 1 || l != 1 {
								t.Errorf("refusal ran %d statements (%d lookups), want the lookup alone", n, l)
							}
							var nk *idgorm.NoUniqueKeyError
							if !errors.As(err, &nk) {
								t.Fatalf("%T is not a *NoUniqueKeyError", err)
							}
							if nk.Model != typeName(model) || nk.Table != tableName(model) || !slices.Equal(nk.Columns, columnsOf(c.key)) {
								t.Errorf("error names %s, %q, %q", nk.Model, nk.Table, nk.Columns)
							}
							for _, m := range c.wantMsg {
								if !strings.Contains(err.Error(), m) {
									t.Errorf("message %q lacks %q", err, m)
								}
							}
						}
						if n := rows(); n != 0 {
							t.Errorf("%d rows in the table, want 0", n)
						}
						return
					}

					// The first call: the lookup, the insert, and on a hit the read.
					wantCreated, wantN := true, int64(2)
					var before row
					if c.existing {
						before, wantCreated, wantN = c.new("k-1"), false, 3
						if err := db.Create(before).Error; err != nil {
							t.Fatal(err)
						}
					}
					first, created, n, l, err := call("k-1")
					if err != nil || created != wantCreated {
						t.Fatalf("first: created %v, %v; want created %v", created, err, wantCreated)
					}
					if before != nil && first.row().ID != before.row().ID {
						t.Errorf("first call got ID %d, want the existing row's %d", first.row().ID, before.row().ID)
					}
					if n != wantN || l != 1 {
						t.Errorf("first call ran %d statements (%d lookups), want %d with 1 lookup", n, l, wantN)
					}
					retry, created, n, l, err := call("k-1")
					if err != nil || created {
						t.Fatalf("retry: created %v, %v", created, err)
					}
					if retry.row().ID != first.row().ID {
						t.Errorf("retry got ID %d, want the first row's %d", retry.row().ID, first.row().ID)
					}
					if n != 2 || l != 0 {
						t.Errorf("hit ran %d statements (%d lookups), want 2: insert, select", n, l)
					}
					if _, created, n, l, err := call("k-2"); err != nil || !created || n != 1 || l != 0 {
						t.Errorf("second key: created %v, %v, %d statements (%d lookups), want 1 (0)", created, err, n, l)
					}
					if n := rows(); n != 2 {
						t.Errorf("%d rows, want 2", n)
					}
				})
			}
		})
	}
}

// TestCreateOrGetLaterIndex: a table or index that a migration makes while the process
// runs is found by the next call; an index dropped after it was found is refused by the
// database, and CreateOrGet reports that too (PostgreSQL, SQLite).
func TestCreateOrGetLaterIndex(t *testing.T) {
	for _, e := range databases(t, "gorm_key_later") {
		t.Run(e.name, func(t *testing.T) {
			db := e.db.WithContext(ctx(t))
			key := idgorm.Key("RequestKey")

			_, err := idgorm.CreateOrGet(db, &ReqMissing{Request{RequestKey: "a"}}, key)
			var nt *idgorm.NoTableError
			if !errors.As(err, &nt) || !errors.Is(err, idgorm.ErrNoTable) || nt.Model != "ReqMissing" || nt.Table != "req_missing" {
				t.Fatalf("no table: %v", err)
			}
			if err := db.AutoMigrate(&ReqMissing{}); err != nil {
				t.Fatal(err)
			}
			if _, err := idgorm.CreateOrGet(db, &ReqMissing{Request{RequestKey: "a"}}, key); !errors.Is(err, idgorm.ErrNoUniqueKey) {
				t.Fatalf("table without index: %v", err)
			}
			if err := db.Exec("CREATE UNIQUE INDEX req_missing_key ON req_missing (request_key)").Error; err != nil {
				t.Fatal(err)
			}
			a := ReqMissing{Request{RequestKey: "a"}}
			if created, err := idgorm.CreateOrGet(db, &a, key); err != nil || !created {
				t.Fatalf("after the migration: %v %v", created, err)
			}
			b := ReqMissing{Request{RequestKey: "a"}}
			if created, err := idgorm.CreateOrGet(db, &b, key); err != nil || created || b.ID != a.ID {
				t.Fatalf("retry after the migration: %v %v, ID %d want %d", created, err, b.ID, a.ID)
			}

			// Index naming an index made after the lookup: looked up again, once.
			if err := db.Exec("CREATE UNIQUE INDEX req_missing_key2 ON req_missing (request_key)").Error; err != nil {
				t.Fatal(err)
			}
			for _, wantLookups := range []int64{1, 0} {
				e.lookups.Store(0)
				c := ReqMissing{Request{RequestKey: "a"}}
				created, err := idgorm.CreateOrGet(db, &c, key, idgorm.Index("req_missing_key2"))
				if err != nil || created || c.ID != a.ID || e.lookups.Load() != wantLookups {
					t.Fatalf("Index of a new index: %v %v, ID %d want %d, %d lookups want %d", created, err, c.ID, a.ID, e.lookups.Load(), wantLookups)
				}
			}

			if e.name == "mysql" {
				return // a plain INSERT: without the index it inserts, see the README
			}
			for _, q := range []string{"DROP INDEX req_missing_key", "DROP INDEX req_missing_key2"} {
				if err := db.Exec(q).Error; err != nil {
					t.Fatal(err)
				}
			}
			e.lookups.Store(0)
			_, err = idgorm.CreateOrGet(db, &ReqMissing{Request{RequestKey: "a"}}, key)
			var nk *idgorm.NoUniqueKeyError
			if !errors.As(err, &nk) || nk.Err == nil || e.lookups.Load() != 0 {
				t.Fatalf("index dropped: %v (%d lookups, want 0: the cached key is used)", err, e.lookups.Load())
			}
			// Forgotten: the next call looks again.
			if _, err := idgorm.CreateOrGet(db, &ReqMissing{Request{RequestKey: "a"}}, key); !errors.As(err, &nk) || nk.Err != nil || e.lookups.Load() != 1 {
				t.Fatalf("after the drop: %v (%d lookups, want 1)", err, e.lookups.Load())
			}
			var n int64
			db.Model(&ReqMissing{}).Count(&n)
			if n != 1 {
				t.Errorf("%d rows, want 1", n)
			}
		})
	}
}

// TestCreateOrGetSearchPath: on PostgreSQL the table is found through the session's
// search_path, as the insert finds it; a key found in one schema and used in another,
// where it has no index, is refused, not inserted twice.
func TestCreateOrGetSearchPath(t *testing.T) {
	for _, e := range databases(t, "gorm_key_path") {
		if e.name != "postgres" {
			continue
		}
		db := e.db.WithContext(ctx(t))
		if err := db.AutoMigrate(&ReqPath{}); err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{
			"CREATE SCHEMA tenant_a",
			"CREATE TABLE tenant_a.req_path (LIKE public.req_path INCLUDING ALL)",
			"CREATE UNIQUE INDEX req_path_key ON tenant_a.req_path (request_key)",
		} {
			if err := db.Exec(q).Error; err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		key := idgorm.Key("RequestKey")
		var ids []int64
		err := db.Transaction(func(tx *gorm.DB) error {
			if err := tx.Exec("SET LOCAL search_path TO tenant_a").Error; err != nil {
				return err
			}
			for range 2 {
				r := ReqPath{Request{RequestKey: "a"}}
				if _, err := idgorm.CreateOrGet(tx, &r, key); err != nil {
					return err
				}
				ids = append(ids, r.ID)
			}
			return nil
		})
		if err != nil || ids[0] != ids[1] {
			t.Fatalf("in tenant_a: %v, IDs %v", err, ids)
		}
		for i := range 2 {
			_, err := idgorm.CreateOrGet(db, &ReqPath{Request{RequestKey: "a"}}, key)
			if !errors.Is(err, idgorm.ErrNoUniqueKey) {
				t.Fatalf("in public, call %d: %v", i, err)
			}
		}
		var n int64
		db.Table("public.req_path").Count(&n)
		if n != 0 {
			t.Errorf("%d rows in public.req_path, want 0", n)
		}
	}
}

// TestCreateOrGetQualifiedTable: a table named with its schema (PostgreSQL), database
// (MySQL) or attached database (SQLite) is looked up there.
func TestCreateOrGetQualifiedTable(t *testing.T) {
	schemas := map[string]string{"postgres": "public", "sqlite": "main"}
	for _, e := range databases(t, "gorm_key_qual") {
		t.Run(e.name, func(t *testing.T) {
			db := e.db.WithContext(ctx(t))
			if e.name == "mysql" {
				// The database's name carries IDGEN_TEST_DB_SUFFIX: ask for it.
				var name string
				if err := db.Raw("SELECT DATABASE()").Scan(&name).Error; err != nil {
					t.Fatal(err)
				}
				schemas[e.name] = name
			}
			if err := db.AutoMigrate(&ReqQual{}); err != nil {
				t.Fatal(err)
			}
			table := db.Table(schemas[e.name] + ".req_qual")
			key := idgorm.Key("RequestKey")
			if _, err := idgorm.CreateOrGet(table, &ReqQual{Request{RequestKey: "a"}}, key); !errors.Is(err, idgorm.ErrNoUniqueKey) {
				t.Fatalf("without the index: %v", err)
			}
			if err := db.Exec("CREATE UNIQUE INDEX req_qual_key ON req_qual (request_key)").Error; err != nil {
				t.Fatal(err)
			}
			a, b := ReqQual{Request{RequestKey: "a"}}, ReqQual{Request{RequestKey: "a"}}
			if created, err := idgorm.CreateOrGet(table, &a, key); err != nil || !created {
				t.Fatalf("first: %v %v", created, err)
			}
			if created, err := idgorm.CreateOrGet(table, &b, key); err != nil || created || b.ID != a.ID {
				t.Fatalf("retry: %v %v, ID %d want %d", created, err, b.ID, a.ID)
			}
			_, err := idgorm.CreateOrGet(db.Table(schemas[e.name]+".req_nope"), &ReqQual{Request{RequestKey: "a"}}, key)
			if !errors.Is(err, idgorm.ErrNoTable) {
				t.Errorf("missing qualified table: %v", err)
			}
		})
	}
}

// TestCreateOrGetCachePerDatabase: one plugin on two databases keeps their keys apart.
func TestCreateOrGetCachePerDatabase(t *testing.T) {
	gen, err := snowflake.New(snowflake.Classic(), 6, snowflake.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := idgorm.New(idgorm.Config{Source: gen})
	open := func(index bool) *gorm.DB {
		db, err := gorm.Open(sqlite.Open(testdb.SQLiteDSN(t)), &gorm.Config{Logger: logger.Discard})
		if err != nil {
			t.Fatal(err)
		}
		if err := db.Use(p); err != nil {
			t.Fatal(err)
		}
		if err := db.AutoMigrate(&ReqRaw{}); err != nil {
			t.Fatal(err)
		}
		if index {
			if err := db.Exec("CREATE UNIQUE INDEX req_raw_key ON req_raw (request_key)").Error; err != nil {
				t.Fatal(err)
			}
		}
		sqlDB, _ := db.DB()
		t.Cleanup(func() { sqlDB.Close() })
		return db
	}
	with, without := open(true), open(false)
	key := idgorm.Key("RequestKey")
	if _, err := idgorm.CreateOrGet(with, &ReqRaw{Request{RequestKey: "a"}}, key); err != nil {
		t.Fatal(err)
	}
	_, err = idgorm.CreateOrGet(without, &ReqRaw{Request{RequestKey: "a"}}, key)
	var nk *idgorm.NoUniqueKeyError
	if !errors.As(err, &nk) || nk.Err != nil {
		t.Fatalf("database without the index: %v, want a refusal found by the lookup", err)
	}
}

// typeName is the model's Go type name, as the errors name it.
func typeName(r row) string { return strings.TrimPrefix(fmt.Sprintf("%T", r), "*idgorm_test.") }

func tableName(r row) string { return r.(interface{ TableName() string }).TableName() }

// columnsOf maps the test's key names to columns, as GORM names them.
func columnsOf(key []string) []string {
	out := make([]string, len(key))
	for i, k := range key {
		out[i] = map[string]string{"RequestKey": "request_key", "tenant": "tenant"}[k]
	}
	return out
}
