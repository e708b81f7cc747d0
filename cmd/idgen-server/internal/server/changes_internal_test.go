package server

import (
	"context"
	"crypto/rand"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/idgen/idgen/cmd/idgen-server/internal/config"
	"github.com/idgen/idgen/cmd/idgen-server/internal/control"
)

// TestChangeTableRace: many processes starting at once on a new database each create
// the change table; every one succeeds and the table is there once.
func TestChangeTableRace(t *testing.T) {
	suffix := strings.ToLower(rand.Text()[:8])
	table := "idgen_race_" + suffix
	cases := []struct {
		name, env string
		typ       string
	}{
		{"postgres", "IDGEN_TEST_POSTGRES_DSN", config.StorePostgres},
		{"mysql", "IDGEN_TEST_MYSQL_DSN", config.StoreMySQL},
		{"sqlite", "", config.StoreSQLite},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dsn := storeDSN(t, c.env)
			const n = 8
			logs := make([]control.ChangeLog, n)
			var first *store
			for i := range logs {
				st, err := openStore("db", config.Store{Type: c.typ, DSN: dsn, SegmentTable: table})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { st.close() })
				if first == nil {
					first = st
				}
				if logs[i], err = newChangeLog(st); err != nil {
					t.Fatal(err)
				}
			}
			t.Cleanup(func() { first.db.Exec("DROP TABLE IF EXISTS " + table + "_changes") })
			var wg sync.WaitGroup
			errs := make([]error, n)
			for i, l := range logs {
				wg.Go(func() { _, errs[i] = l.Steps(context.Background()) })
			}
			wg.Wait()
			for i, err := range errs {
				if err != nil {
					t.Errorf("process %d: %v", i, err)
				}
			}
		})
	}
}

// storeDSN is the DSN of a store case's server: an SQLite file of the test's own when env
// is "", else the value of the variable env, the test skipped when it is not set.
func storeDSN(t testing.TB, env string) string {
	t.Helper()
	if env == "" {
		return t.TempDir() + "/idgen.db"
	}
	dsn := os.Getenv(env)
	if dsn == "" {
		t.Skip(env + " is not set")
	}
	return dsn
}
