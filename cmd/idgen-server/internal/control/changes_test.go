package control_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"
	_ "github.com/jackc/pgx/v5/stdlib"
	"github.com/redis/go-redis/v9"
	_ "modernc.org/sqlite"

	"github.com/idgen/idgen/cmd/idgen-server/internal/control"
	"github.com/idgen/idgen/runtime/sqldb"
)

// openLog returns a change log on a fresh table (or key prefix) of the store of kind,
// skipping the test when its server's variable is not set.
func openLog(t *testing.T, kind string) control.ChangeLog {
	t.Helper()
	suffix := strings.ToLower(rand.Text()[:8])
	env := map[string]string{"postgres": "IDGEN_TEST_POSTGRES_DSN", "mysql": "IDGEN_TEST_MYSQL_DSN", "redis": "IDGEN_TEST_REDIS_DSN"}[kind]
	dsn := t.TempDir() + "/changes.db"
	if env != "" {
		if dsn = os.Getenv(env); dsn == "" {
			t.Skip(env + " is not set")
		}
	}
	if kind == "redis" {
		opt, err := redis.ParseURL(dsn)
		if err != nil {
			t.Fatal(err)
		}
		c := redis.NewClient(opt)
		prefix := "idgen-ctl-" + suffix + ":"
		t.Cleanup(func() {
			c.Del(context.Background(), prefix+"~changes", prefix+"~steps")
			c.Close()
		})
		return control.RedisChangeLog(c, prefix)
	}
	driver, dialect := map[string]string{"postgres": "pgx", "mysql": "mysql", "sqlite": "sqlite"}[kind], map[string]sqldb.Dialect{"postgres": sqldb.Postgres, "mysql": sqldb.MySQL, "sqlite": sqldb.SQLite}[kind]
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	table := "idgen_ctl_" + suffix + "_changes"
	t.Cleanup(func() {
		db.Exec("DROP TABLE IF EXISTS " + table)
		db.Close()
	})
	l, err := control.SQLChangeLog(db, dialect, table)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestChangeLog: on every store a change log keeps changes, lists them newest first and
// gives each tag's latest step change (the highest ID when two are kept in one
// millisecond); Logs cut names to what a log keeps and merge logs newest first.
func TestChangeLog(t *testing.T) {
	for _, kind := range []string{"sqlite", "postgres", "mysql", "redis"} {
		t.Run(kind, func(t *testing.T) {
			ctx := context.Background()
			logs := control.Logs{"db": openLog(t, kind)}
			at := time.UnixMilli(time.Now().UnixMilli())
			long := strings.Repeat("w", 300)
			changes := []control.Change{
				{At: at, Who: long, Tag: "refund", Kind: control.ChangeCreate, Store: "db", New: 10, First: 1000},
				{At: at.Add(time.Millisecond), Who: "ops", Tag: "order", Kind: control.ChangeStep, Store: "db", Old: 100, New: 7},
				{At: at.Add(time.Millisecond), Who: "ops2", Tag: "order", Kind: control.ChangeStep, Store: "db", Old: 50, New: 9},
			}
			for _, c := range changes {
				id, err := logs.Record(ctx, c)
				if err != nil || id == "" {
					t.Fatalf("Record(%+v) = %q, %v", c, id, err)
				}
			}
			if id, err := logs.Record(ctx, control.Change{Tag: "x", Kind: control.ChangeStep, Store: "elsewhere", New: 3}); id != "" || err != nil {
				t.Fatalf("Record on a store without a log = %q, %v, want \"\", nil", id, err)
			}
			got, err := logs.Recent(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 3 {
				t.Fatalf("Recent: %d changes, want 3: %+v", len(got), got)
			}
			if got[2].Tag != "refund" || got[2].Who != long[:128] || got[2].First != 1000 || got[2].Kind != control.ChangeCreate || !got[2].At.Equal(at) || got[2].Store != "db" {
				t.Errorf("oldest change %+v, want the create by a name cut to 128 bytes", got[2])
			}
			steps, err := logs["db"].Steps(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(steps) != 1 || steps[0].Tag != "order" || steps[0].New != 9 || steps[0].Who != "ops2" || steps[0].ID == "" {
				t.Errorf("Steps = %+v, want order's step 9 by ops2 (kept last)", steps)
			}
		})
	}
}

// TestLogsUnreadable: a store whose log cannot be read is named in Recent's error, and
// the changes of the others are still returned.
func TestLogsUnreadable(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("sqlite", t.TempDir()+"/broken.db")
	if err != nil {
		t.Fatal(err)
	}
	broken, err := control.SQLChangeLog(db, sqldb.SQLite, "idgen_changes")
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	logs := control.Logs{"good": openLog(t, "sqlite"), "bad": broken}
	if _, err := logs.Record(ctx, control.Change{At: time.Now(), Who: "ops", Tag: "order", Kind: control.ChangeStep, Store: "good", New: 5}); err != nil {
		t.Fatal(err)
	}
	got, err := logs.Recent(ctx)
	if err == nil || !strings.Contains(err.Error(), `store "bad"`) {
		t.Errorf("Recent error %v, want one naming store \"bad\"", err)
	}
	if !slices.ContainsFunc(got, func(c control.Change) bool { return c.Store == "good" && c.Tag == "order" }) {
		t.Errorf("Recent = %+v, want good's change", got)
	}
}

// TestSQLChangeLogTable: a table name that is not a plain identifier is refused before
// any SQL is built from it.
func TestSQLChangeLogTable(t *testing.T) {
	_, err := control.SQLChangeLog(nil, sqldb.SQLite, "changes; DROP TABLE x")
	if err == nil {
		t.Fatal("SQLChangeLog accepted a table name with SQL in it")
	}
	if !strings.Contains(err.Error(), "change table") {
		t.Errorf("error %q, want it to name the change table", err)
	}
}
