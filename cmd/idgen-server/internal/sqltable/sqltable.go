// Package sqltable holds what idgen-server's own SQL tables (the registry of servers,
// the change log of segment tags) share: the rule for a table name spliced into SQL, and
// creating a table when many instances start at once on a new database. The runtime's
// stores follow the same rules in runtime/internal/sqlstore, which another module cannot
// import.
package sqltable

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
)

// ErrInvalid is matched by the error of a table name Check refuses.
var ErrInvalid = errors.New("invalid table name")

// MaxCreateAttempts bounds the runs of a CREATE that lose a race with another session
// creating the same table.
const MaxCreateAttempts = 30

// Check returns an error matching ErrInvalid unless name is one or two dot-separated
// parts ("idgen_servers", "app.idgen_servers"), each 1 to 63 bytes of ASCII letters,
// digits and underscores, not starting with a digit: what every dialect reads unquoted
// (the rule of the runtime's tables), since the name is spliced into SQL.
func Check(name string) error {
	parts := strings.Split(name, ".")
	if len(parts) > 2 {
		return fmt.Errorf("%w %q: want name or schema.name", ErrInvalid, name)
	}
	for _, p := range parts {
		if p == "" || len(p) > 63 || '0' <= p[0] && p[0] <= '9' {
			return fmt.Errorf("%w %q: want parts of 1 to 63 bytes, not starting with a digit", ErrInvalid, name)
		}
		for i := 0; i < len(p); i++ {
			if c := p[i]; !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
				return fmt.Errorf("%w %q: byte %q, want ASCII letters, digits and underscores", ErrInvalid, name, c)
			}
		}
	}
	return nil
}

// Create runs stmt (CREATE TABLE IF NOT EXISTS ...) on db again while it fails because
// another session creates the same table at the same moment (or the database is busy),
// at most MaxCreateAttempts times, pausing a random 1 to 128 ms that doubles per attempt:
// CREATE TABLE IF NOT EXISTS is not atomic on PostgreSQL, and a run that succeeds after
// the other session committed is the check that the table exists. Any other error is
// returned at once.
func Create(ctx context.Context, db *sql.DB, stmt string) error {
	for attempt := 1; ; attempt++ {
		_, err := db.ExecContext(ctx, stmt)
		switch {
		case err == nil:
			return nil
		case !Race(err) || attempt >= MaxCreateAttempts:
			return fmt.Errorf("attempt %d: %w", attempt, err)
		}
		d := time.Millisecond << min(attempt-1, 6)
		t := time.NewTimer(d + rand.N(d))
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("attempt %d: %w", attempt, errors.Join(err, ctx.Err()))
		}
	}
}

// Race reports an error of a CREATE TABLE racing another: PostgreSQL's unique violation
// on the catalog (23505), duplicate table or object (42P07, 42710), a serialization
// failure or deadlock (40001, 40P01); MySQL's table exists (1050), deadlock (1213) or lock
// wait timeout (1205); SQLite's busy or locked file (5, 6).
func Race(err error) bool {
	var pg interface{ SQLState() string }
	if errors.As(err, &pg) {
		switch pg.SQLState() {
		case "23505", "42P07", "42710", "40001", "40P01":
			return true
		}
		return false
	}
	var my *mysql.MySQLError
	if errors.As(err, &my) {
		return my.Number == 1050 || my.Number == 1213 || my.Number == 1205
	}
	var lite interface{ Code() int }
	if errors.As(err, &lite) {
		c := lite.Code() & 0xff
		return c == 5 || c == 6
	}
	return false
}
