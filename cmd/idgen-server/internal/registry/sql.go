package registry

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/idgen/idgen/runtime/lease"
	"github.com/idgen/idgen/runtime/sqldb"
)

// DefaultTable is the table of an SQL Store given no name: the default lease table's,
// with "_servers" added. idgen-server names the table after its store's lease table
// (config.Store.ServerTableName), so that fleets with lease tables of their own in one
// database keep their records apart too.
const DefaultTable = lease.DefaultTable + "_servers"

// PurgeAfter is how long past its expiry a row stays before a Put deletes it: long
// enough that a writer whose clock runs behind the purger's is not purged while live.
const PurgeAfter = time.Minute

// SQLOptions configures an SQL Store. The zero value uses DefaultTable and the wall clock.
type SQLOptions struct {
	// Table is the table's name, DefaultTable if empty (sqldb.CheckTable's rule).
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

func queriesOf(d sqldb.Dialect, t string) (queries, error) {
	const cols = "id, url, worker, started_ms, expires_ms"
	const schema = ` (
	id VARCHAR(64) NOT NULL PRIMARY KEY,
	url VARCHAR(1024) NOT NULL,
	worker BIGINT NOT NULL,
	started_ms BIGINT NOT NULL,
	expires_ms BIGINT NOT NULL
)`
	switch d {
	case sqldb.Postgres:
		return queries{
			create: "CREATE TABLE IF NOT EXISTS " + t + schema,
			upsert: "INSERT INTO " + t + " (" + cols + ") VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO UPDATE SET " +
				"url = excluded.url, worker = excluded.worker, started_ms = excluded.started_ms, expires_ms = excluded.expires_ms",
			list:  "SELECT " + cols + " FROM " + t + " WHERE expires_ms > $1",
			del:   "DELETE FROM " + t + " WHERE id = $1",
			purge: "DELETE FROM " + t + " WHERE expires_ms < $1",
		}, nil
	case sqldb.SQLite:
		return queries{
			create: "CREATE TABLE IF NOT EXISTS " + t + schema,
			upsert: "INSERT INTO " + t + " (" + cols + ") VALUES (?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET " +
				"url = excluded.url, worker = excluded.worker, started_ms = excluded.started_ms, expires_ms = excluded.expires_ms",
			list:  "SELECT " + cols + " FROM " + t + " WHERE expires_ms > ?",
			del:   "DELETE FROM " + t + " WHERE id = ?",
			purge: "DELETE FROM " + t + " WHERE expires_ms < ?",
		}, nil
	case sqldb.MySQL:
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
func NewSQL(ctx context.Context, db *sql.DB, d sqldb.Dialect, o SQLOptions) (*SQL, error) {
	if o.Table == "" {
		o.Table = DefaultTable
	}
	if err := sqldb.CheckTable(o.Table); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	q, err := queriesOf(d, o.Table)
	if err != nil {
		return nil, err
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if err := sqldb.CreateTables(ctx, db, q.create); err != nil {
		return nil, fmt.Errorf("registry: creating table %s: %w", o.Table, err)
	}
	return &SQL{db: db, q: q, now: o.Now}, nil
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
