package registry

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/idgen/idgen/runtime/lease"
)

// DefaultTable is the table of an SQL Store given no name.
const DefaultTable = "idgen_servers"

// Named bounds of the SQL Store.
const (
	// MaxCreateAttempts bounds the runs of CREATE TABLE that lose a race with another
	// process creating the same table.
	MaxCreateAttempts = 30
	// PurgeAfter is how long past its expiry a row stays before a Put deletes it: long
	// enough that a writer whose clock runs behind the purger's is not purged while live.
	PurgeAfter = time.Minute
)

// CheckTable returns an error matching ErrInvalid unless name is one or two dot-separated
// parts ("idgen_servers", "app.idgen_servers"), each 1 to 63 bytes of ASCII letters,
// digits and underscores, not starting with a digit: the rule of runtime/lease's tables,
// since the name is spliced into SQL unquoted.
func CheckTable(name string) error {
	parts := strings.Split(name, ".")
	if len(parts) > 2 {
		return fmt.Errorf("%w table name %q: want name or schema.name", ErrInvalid, name)
	}
	for _, p := range parts {
		if p == "" || len(p) > 63 || '0' <= p[0] && p[0] <= '9' {
			return fmt.Errorf("%w table name %q: want parts of 1 to 63 bytes, not starting with a digit", ErrInvalid, name)
		}
		for i := 0; i < len(p); i++ {
			if c := p[i]; !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
				return fmt.Errorf("%w table name %q: byte %q, want ASCII letters, digits and underscores", ErrInvalid, name, c)
			}
		}
	}
	return nil
}

// SQLOptions configures an SQL Store. The zero value uses DefaultTable and the wall clock.
type SQLOptions struct {
	// Table is the table's name, DefaultTable if empty (CheckTable's rule).
	Table string
	// Now is the clock expiries are written and judged by; time.Now if nil.
	Now func() time.Time
}

// SQL is a Store in a table of a database: SQLite, PostgreSQL or MySQL/MariaDB.
type SQL struct {
	db  *sql.DB
	q   queries
	now func() time.Time
}

// queries are the statements of one dialect on one table.
type queries struct {
	create, upsert, list, del, purge string
}

func queriesOf(d lease.Dialect, t string) (queries, error) {
	const cols = "id, url, worker, started_ms, expires_ms"
	const schema = ` (
	id VARCHAR(64) NOT NULL PRIMARY KEY,
	url VARCHAR(1024) NOT NULL,
	worker BIGINT NOT NULL,
	started_ms BIGINT NOT NULL,
	expires_ms BIGINT NOT NULL
)`
	switch d {
	case lease.Postgres:
		return queries{
			create: "CREATE TABLE IF NOT EXISTS " + t + schema,
			upsert: "INSERT INTO " + t + " (" + cols + ") VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO UPDATE SET " +
				"url = excluded.url, worker = excluded.worker, started_ms = excluded.started_ms, expires_ms = excluded.expires_ms",
			list:  "SELECT " + cols + " FROM " + t + " WHERE expires_ms > $1",
			del:   "DELETE FROM " + t + " WHERE id = $1",
			purge: "DELETE FROM " + t + " WHERE expires_ms < $1",
		}, nil
	case lease.SQLite:
		return queries{
			create: "CREATE TABLE IF NOT EXISTS " + t + schema,
			upsert: "INSERT INTO " + t + " (" + cols + ") VALUES (?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET " +
				"url = excluded.url, worker = excluded.worker, started_ms = excluded.started_ms, expires_ms = excluded.expires_ms",
			list:  "SELECT " + cols + " FROM " + t + " WHERE expires_ms > ?",
			del:   "DELETE FROM " + t + " WHERE id = ?",
			purge: "DELETE FROM " + t + " WHERE expires_ms < ?",
		}, nil
	case lease.MySQL:
		return queries{
			create: "CREATE TABLE IF NOT EXISTS " + t + schema,
			upsert: "INSERT INTO " + t + " (" + cols + ") VALUES (?, ?, ?, ?, ?) ON DUPLICATE KEY UPDATE " +
				"url = VALUES(url), worker = VALUES(worker), started_ms = VALUES(started_ms), expires_ms = VALUES(expires_ms)",
			list:  "SELECT " + cols + " FROM " + t + " WHERE expires_ms > ?",
			del:   "DELETE FROM " + t + " WHERE id = ?",
			purge: "DELETE FROM " + t + " WHERE expires_ms < ?",
		}, nil
	}
	return queries{}, fmt.Errorf("%w SQL dialect %v: want postgres, mysql or sqlite", ErrInvalid, d)
}

// NewSQL returns the Store in o.Table of db, creating the table when it is missing:
// many processes may do so at once on a new database.
func NewSQL(ctx context.Context, db *sql.DB, d lease.Dialect, o SQLOptions) (*SQL, error) {
	if o.Table == "" {
		o.Table = DefaultTable
	}
	if err := CheckTable(o.Table); err != nil {
		return nil, err
	}
	q, err := queriesOf(d, o.Table)
	if err != nil {
		return nil, err
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if err := create(ctx, db, q.create); err != nil {
		return nil, fmt.Errorf("registry: creating table %s: %w", o.Table, err)
	}
	return &SQL{db: db, q: q, now: o.Now}, nil
}

// create runs stmt again while it fails because another session creates the same table
// at the same moment (or the database is busy), at most MaxCreateAttempts times: CREATE
// TABLE IF NOT EXISTS is not atomic on PostgreSQL, and a run that succeeds after the
// other session committed is the check that the table exists.
func create(ctx context.Context, db *sql.DB, stmt string) error {
	for attempt := 1; ; attempt++ {
		_, err := db.ExecContext(ctx, stmt)
		switch {
		case err == nil:
			return nil
		case !createRace(err) || attempt >= MaxCreateAttempts:
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

// createRace reports an error of a CREATE TABLE racing another: PostgreSQL's unique
// violation on the catalog (23505), duplicate table or object (42P07, 42710), a
// serialization failure or deadlock (40001, 40P01); MySQL's table exists (1050), deadlock
// (1213) or lock wait timeout (1205); SQLite's busy or locked file (5, 6).
func createRace(err error) bool {
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

// Put implements Store; it also deletes the rows expired more than PurgeAfter ago.
func (s *SQL) Put(ctx context.Context, in Instance, ttl time.Duration) error {
	if err := checkInstance(in); err != nil {
		return err
	}
	now := s.now()
	if _, err := s.db.ExecContext(ctx, s.q.upsert, in.ID, in.URL, in.Worker, in.Started.UnixMilli(), now.Add(ttl).UnixMilli()); err != nil {
		return fmt.Errorf("registry: writing %s: %w", in.ID, err)
	}
	if _, err := s.db.ExecContext(ctx, s.q.purge, now.Add(-PurgeAfter).UnixMilli()); err != nil {
		return fmt.Errorf("registry: purging expired records: %w", err)
	}
	return nil
}

// List implements Store.
func (s *SQL) List(ctx context.Context) ([]Instance, error) {
	rows, err := s.db.QueryContext(ctx, s.q.list, s.now().UnixMilli())
	if err != nil {
		return nil, fmt.Errorf("registry: listing: %w", err)
	}
	defer rows.Close()
	var out []Instance
	for rows.Next() {
		var in Instance
		var started, expires int64
		if err := rows.Scan(&in.ID, &in.URL, &in.Worker, &started, &expires); err != nil {
			return nil, fmt.Errorf("registry: listing: %w", err)
		}
		in.Started, in.Expires = time.UnixMilli(started), time.UnixMilli(expires)
		out = append(out, in)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("registry: listing: %w", err)
	}
	return out, nil
}

// Delete implements Store.
func (s *SQL) Delete(ctx context.Context, id string) error {
	if _, err := s.db.ExecContext(ctx, s.q.del, id); err != nil {
		return fmt.Errorf("registry: deleting %s: %w", id, err)
	}
	return nil
}
