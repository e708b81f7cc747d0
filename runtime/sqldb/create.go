package sqldb

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/idgen/idgen/runtime/internal/sqlerr"
)

// MaxCreateAttempts bounds the runs of one statement by CreateTables.
const MaxCreateAttempts = 30

// Execer is what *sql.DB, *sql.Conn and *sql.Tx share: what CreateTables runs its
// statements on.
type Execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// CreateTables runs stmts (CREATE TABLE / CREATE INDEX ... IF NOT EXISTS) in order on db,
// safely when many processes do so at once on a new database. A statement that fails
// because another session creates the same table or index at the same moment
// (PostgreSQL's 23505 on the catalog, 42P07, 42710; MySQL's 1050; a deadlock, a
// serialization failure or a busy SQLite file) is run again after a pause (see Pause: 1
// ms, doubling up to about 100 ms), at most MaxCreateAttempts times and while ctx lasts;
// success on a later run shows the object exists. It reads the drivers' errors without
// linking any driver. Any other error is returned at once. Errors are the driver's, with the attempts counted when
// there was more than one; callers add their package's prefix and the table's name.
func CreateTables(ctx context.Context, db Execer, stmts ...string) error {
	for _, stmt := range stmts {
		if err := create(ctx, db, stmt); err != nil {
			return err
		}
	}
	return nil
}

func create(ctx context.Context, db Execer, stmt string) error {
	for attempt := 1; ; attempt++ {
		_, err := db.ExecContext(ctx, stmt)
		switch {
		case err == nil:
			return nil
		case !sqlerr.CreateRace(err) || ctx.Err() != nil:
			if attempt > 1 {
				return fmt.Errorf("attempt %d: %w", attempt, err)
			}
			return err
		case attempt >= MaxCreateAttempts:
			return fmt.Errorf("still racing after %d attempts: %w", attempt, err)
		}
		if Pause(ctx, attempt) != nil {
			return fmt.Errorf("attempt %d: %w", attempt, err)
		}
	}
}

// Pause sleeps before attempt+1 of a step that lost a race or met a busy database (the
// stores of idgen pause so between the runs of a contended statement): a
// random time in [d, 2d), d being 1 ms doubled per attempt up to 64 ms, so that racing
// processes spread out. It returns ctx's error if ctx ends first.
func Pause(ctx context.Context, attempt int) error {
	d := time.Millisecond << min(max(attempt-1, 0), 6)
	t := time.NewTimer(d + rand.N(d))
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
