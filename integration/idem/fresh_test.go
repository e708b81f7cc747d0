//go:build unix

package idem_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/idgen/idgen/integration/internal/testproc"
	"github.com/idgen/idgen/runtime/idem"
	"github.com/idgen/idgen/runtime/sqldb"
)

// freshEnv makes the test binary a child of TestFreshDatabase; its value is a freshSpec in
// JSON.
const freshEnv = "IDGEN_IDEM_FRESH_CHILD"

type freshSpec struct {
	Driver, DSN string
	Dialect     sqldb.Dialect
}

func TestMain(m *testing.M) {
	if spec := os.Getenv(freshEnv); spec != "" {
		if err := freshChild(spec); err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// freshChild opens the database, waits for the parent's go, then does what a process of a
// service does at start: create the table, and claim a key every process claims.
func freshChild(js string) error {
	var spec freshSpec
	if err := json.Unmarshal([]byte(js), &spec); err != nil {
		return err
	}
	db, err := sql.Open(spec.Driver, spec.DSN)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := db.Ping(); err != nil {
		return err
	}
	s, err := idem.NewSQL(db, spec.Dialect, idem.SQLOptions{})
	if err != nil {
		return err
	}
	if err := testproc.Ready(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := s.CreateTable(ctx); err != nil {
		return err
	}
	tok, _, err := s.Claim(ctx, "the-same-key", "fp", time.Minute)
	if err != nil {
		return err
	}
	if tok != "" {
		fmt.Println("won")
	} else {
		fmt.Println("held")
	}
	return nil
}

// TestFreshDatabase: eight processes start together on a new database (no table yet),
// each creating the table and claiming one key at the same moment, on every SQL store,
// three rounds each: no process fails, and exactly one claims the key.
func TestFreshDatabase(t *testing.T) {
	const procs, rounds = 8, 3
	for _, b := range sqlBackends {
		t.Run(b.name, func(t *testing.T) {
			for round := range rounds {
				t.Run(fmt.Sprint(round), func(t *testing.T) {
					dsn := b.dsn(t, "idem_fresh")
					if b.dialect == sqldb.SQLite {
						// The file itself, in WAL mode: eight processes switching a new file
						// to WAL at once get SQLITE_BUSY from the switch, which is not what
						// this test is about (the table is still to be created).
						db := b.open(t, dsn)
						if err := db.Ping(); err != nil {
							t.Fatal(err)
						}
						db.Close()
					}
					js, _ := json.Marshal(freshSpec{Driver: b.driver, DSN: dsn, Dialect: b.dialect})
					g := testproc.Start(t, procs, func(int) []string { return []string{freshEnv + "=" + string(js)} })
					g.Release()
					won := 0
					for i := range procs {
						switch line := g.Line(i); line {
						case "won":
							won++
						case "held":
						default:
							t.Errorf("process %d: %q %s", i, line, g.Stderr(i))
						}
					}
					for _, err := range g.Wait() {
						if err != nil {
							t.Error(err)
						}
					}
					if won != 1 {
						t.Errorf("%d processes claimed the key, want 1", won)
					}
				})
			}
		})
	}
}
