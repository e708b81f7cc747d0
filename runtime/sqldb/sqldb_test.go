package sqldb_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/idgen/idgen/runtime/internal/sqlstore"
	. "github.com/idgen/idgen/runtime/sqldb"
)

func TestCheckTable(t *testing.T) {
	for _, name := range sqlstore.GoodTables() {
		if err := CheckTable(name); err != nil {
			t.Errorf("CheckTable(%q) = %v, want nil", name, err)
		}
	}
	for _, name := range sqlstore.HostileTables() {
		err := CheckTable(name)
		var te *TableError
		if !errors.Is(err, ErrInvalidTable) || !errors.As(err, &te) || te.Table != name {
			t.Errorf("CheckTable(%q) = %v, want a *TableError naming it", name, err)
			continue
		}
		if !strings.HasPrefix(err.Error(), "invalid table name ") || te.Reason == "" {
			t.Errorf("CheckTable(%q): message %q", name, err)
		}
	}
}

func TestDialect(t *testing.T) {
	for _, tc := range []struct {
		d    Dialect
		name string
		ok   bool
	}{
		{Postgres, "postgres", true},
		{MySQL, "mysql", true},
		{SQLite, "sqlite", true},
		{0, "Dialect(0)", false},
		{9, "Dialect(9)", false},
	} {
		if got := tc.d.String(); got != tc.name {
			t.Errorf("String() = %q, want %q", got, tc.name)
		}
		err := CheckDialect(tc.d)
		if (err == nil) != tc.ok || !tc.ok && !errors.Is(err, ErrUnknownDialect) {
			t.Errorf("CheckDialect(%v) = %v, want ok %v", tc.d, err, tc.ok)
		}
	}
}

// The creation race itself, on new PostgreSQL, MySQL and SQLite databases, is tested
// through the stores that create their tables with this package (lease, segment, idem,
// ledger) in the integration module (integration/sqlstore). Here a scripted Execer stands
// in for the database.

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

// TestCreateTables: statements run in order; a lost race is run again until it succeeds,
// its attempts counted in the error if it then fails otherwise; an error other than a
// race is returned at once, unwrapped, and stops the schema; a cancelled context stops
// the retries.
func TestCreateTables(t *testing.T) {
	ctx := context.Background()
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	for _, tc := range []struct {
		name string
		ctx  context.Context
		errs map[string][]error
		runs []string
		err  string // the error's text, "" for none
	}{
		{"clean", ctx, nil, []string{"a", "b"}, ""},
		{"races then succeeds", ctx, map[string][]error{"a": {lostRace, lostRace}}, []string{"a", "a", "a", "b"}, ""},
		{"syntax", ctx, map[string][]error{"a": {syntax}}, []string{"a"}, "SQLSTATE 42601"},
		{"second statement", ctx, map[string][]error{"b": {syntax}}, []string{"a", "b"}, "SQLSTATE 42601"},
		{"races then fails", ctx, map[string][]error{"a": {lostRace, syntax}}, []string{"a", "a"}, "attempt 2: SQLSTATE 42601"},
		{"cancelled", cancelled, map[string][]error{"a": {lostRace}}, []string{"a"}, "SQLSTATE 42P07"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &script{errs: tc.errs}
			err := CreateTables(tc.ctx, s, "a", "b")
			if got := fmt.Sprint(err); tc.err == "" && err != nil || tc.err != "" && got != tc.err {
				t.Errorf("CreateTables = %v, want %q", err, tc.err)
			}
			if tc.err != "" && !errors.Is(err, syntax) && !errors.Is(err, lostRace) {
				t.Errorf("CreateTables = %v, which does not wrap the driver's error", err)
			}
			if runs := s.ran(); !slices.Equal(runs, tc.runs) {
				t.Errorf("statements run: %q, want %q", runs, tc.runs)
			}
		})
	}
	if err := CreateTables(ctx, &script{errs: map[string][]error{"a": {syntax}}}, "a"); err != syntax {
		t.Errorf("an error other than a race: %#v, want the driver's, unwrapped", err)
	}
	if err := Pause(cancelled, 3); !errors.Is(err, context.Canceled) {
		t.Errorf("Pause on a cancelled context: %v", err)
	}
}

// TestCreated: the schema runs until it has succeeded once, however many goroutines ask
// at once; a failure is reported with the package and table, and the next call runs the
// schema again.
func TestCreated(t *testing.T) {
	ctx := context.Background()
	s := &script{errs: map[string][]error{"a": {syntax}}}
	var c sqlstore.Created
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
