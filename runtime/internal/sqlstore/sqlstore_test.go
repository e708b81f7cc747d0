package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/idgen/idgen/runtime/sqldb"
)

func TestBind(t *testing.T) {
	for _, tc := range []struct {
		d     sqldb.Dialect
		query string
	}{
		{sqldb.Postgres, "SELECT $2, $1"},
		{sqldb.MySQL, "SELECT ?, ?"},
		{sqldb.SQLite, "SELECT ?2, ?1"},
	} {
		if q := Bind(tc.d, "SELECT $2, $1").Query; q != tc.query {
			t.Errorf("%v: Bind = %q, want %q", tc.d, q, tc.query)
		}
	}
	if got := Bind(sqldb.MySQL, "SELECT $2, $1").Args("a", "b"); fmt.Sprint(got) != "[b a]" {
		t.Errorf("MySQL args %v", got)
	}
}

// stateError has the SQLState method of pgx's and lib/pq's errors: what sqlerr reads of
// them.
type stateError string

func (e stateError) Error() string    { return "SQLSTATE " + string(e) }
func (e stateError) SQLState() string { return string(e) }

// Errors a PostgreSQL session may meet running CREATE ... IF NOT EXISTS: a lost race
// (duplicate_table), and one running it again does not cure (a syntax error).
const (
	lostRace = stateError("42P07")
	syntax   = stateError("42601")
)

// script is an Execer that answers each statement with the errors listed for it, one per
// run, and nil once they are used up; it records every run.
type script struct {
	mu   sync.Mutex
	errs map[string][]error
	runs []string
}

func (s *script) ExecContext(_ context.Context, query string, _ ...any) (sql.Result, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.runs = append(s.runs, query)
	if errs := s.errs[query]; len(errs) > 0 {
		s.errs[query] = errs[1:]
		return nil, errs[0]
	}
	return nil, nil
}

func (s *script) ran() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.runs)
}

func TestResolveTable(t *testing.T) {
	if got, err := ResolveTable("lease", sqldb.SQLite, "", "idgen_lease"); err != nil || got != "idgen_lease" {
		t.Errorf("empty table: %q, %v; want the default", got, err)
	}
	if got, err := ResolveTable("lease", sqldb.MySQL, "app.t", "idgen_lease"); err != nil || got != "app.t" {
		t.Errorf("qualified table: %q, %v", got, err)
	}
	_, err := ResolveTable("segment", sqldb.Dialect(9), "t", "d")
	if !errors.Is(err, sqldb.ErrUnknownDialect) || !strings.HasPrefix(err.Error(), "segment: unknown SQL dialect") {
		t.Errorf("unknown dialect: %v", err)
	}
	_, err = ResolveTable("idem", sqldb.Postgres, "a-b", "d")
	var te *sqldb.TableError
	if !errors.As(err, &te) || te.Table != "a-b" || !strings.HasPrefix(err.Error(), "idem: invalid table name ") {
		t.Errorf("bad table: %v", err)
	}
}

// TestCreated: the schema runs until it has succeeded once, however many goroutines ask
// at once; a failure is reported with the package and table, and the next call runs the
// schema again.
func TestCreated(t *testing.T) {
	ctx := context.Background()
	s := &script{errs: map[string][]error{"a": {syntax}}}
	var c Created
	if err := c.Create(ctx, s, "lease", "t", []string{"a", "b"}); err == nil || err.Error() != "lease: creating table t: SQLSTATE 42601" || !errors.Is(err, syntax) {
		t.Fatalf("a failing schema: %v", err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if err := c.Create(ctx, s, "lease", "t", []string{"a", "b"}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if runs := s.ran(); !slices.Equal(runs, []string{"a", "a", "b"}) {
		t.Errorf("statements run: %q, want the failure, then the schema once", runs)
	}
}
