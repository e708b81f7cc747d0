package segment

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/idgen/idgen/runtime/internal/sqlerr"
	"github.com/idgen/idgen/runtime/internal/sqlstore"
	"github.com/idgen/idgen/runtime/sqldb"
)

// DefaultTable is the table an [SQL] store uses when given no name.
const DefaultTable = "idgen_segment"

// schema returns the statement that creates table, which CheckTable accepted, in d.
func schema(d sqldb.Dialect, table string) string {
	switch d {
	case sqldb.Postgres:
		return "CREATE TABLE IF NOT EXISTS " + table + ` (
	tag        varchar(128) NOT NULL PRIMARY KEY,
	max_id     bigint       NOT NULL,
	step       bigint       NOT NULL,
	updated_at timestamptz  NOT NULL DEFAULT now()
)`
	case sqldb.MySQL:
		return "CREATE TABLE IF NOT EXISTS " + table + ` (
	tag        VARCHAR(128) NOT NULL PRIMARY KEY,
	max_id     BIGINT       NOT NULL,
	step       BIGINT       NOT NULL,
	updated_at TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)
) ENGINE=InnoDB`
	case sqldb.SQLite:
		return "CREATE TABLE IF NOT EXISTS " + table + ` (
	tag        TEXT    NOT NULL PRIMARY KEY,
	max_id     INTEGER NOT NULL,
	step       INTEGER NOT NULL,
	updated_at TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f', 'now'))
)`
	}
	return ""
}

// statements returns the reservation and the insertion of a missing tag. The reservation
// takes (step, tag) and, except on MySQL, returns the new max_id; on MySQL it stores it in
// LAST_INSERT_ID, which the driver reports in the statement's result, so no second
// statement is needed. The insertion takes (tag, step) and does nothing if the tag exists.
func statements(d sqldb.Dialect, table string) (reserve, insert string) {
	switch d {
	case sqldb.Postgres:
		return "UPDATE " + table + " SET max_id = max_id + $1, step = $1, updated_at = now() WHERE tag = $2 RETURNING max_id",
			"INSERT INTO " + table + " (tag, max_id, step) VALUES ($1, 0, $2) ON CONFLICT (tag) DO NOTHING"
	case sqldb.MySQL:
		return "UPDATE " + table + " SET max_id = LAST_INSERT_ID(max_id + ?), step = ?, updated_at = CURRENT_TIMESTAMP(6) WHERE tag = ?",
			"INSERT INTO " + table + " (tag, max_id, step) VALUES (?, 0, ?) ON DUPLICATE KEY UPDATE tag = tag"
	case sqldb.SQLite:
		return "UPDATE " + table + " SET max_id = max_id + ?1, step = ?1, updated_at = strftime('%Y-%m-%d %H:%M:%f', 'now') WHERE tag = ?2 RETURNING max_id",
			"INSERT INTO " + table + " (tag, max_id, step) VALUES (?1, 0, ?2) ON CONFLICT (tag) DO NOTHING"
	}
	return "", ""
}

// createStatement returns the insertion of a new tag that Create runs, taking (tag,
// max_id, step). On PostgreSQL and SQLite it does nothing if the tag exists (0 rows
// affected); on MySQL it fails with a duplicate key (1062), since its ON DUPLICATE KEY
// UPDATE reports an unchanged row as 1 row affected under the clientFoundRows option.
func createStatement(d sqldb.Dialect, table string) string {
	switch d {
	case sqldb.Postgres:
		return "INSERT INTO " + table + " (tag, max_id, step) VALUES ($1, $2, $3) ON CONFLICT (tag) DO NOTHING"
	case sqldb.MySQL:
		return "INSERT INTO " + table + " (tag, max_id, step) VALUES (?, ?, ?)"
	case sqldb.SQLite:
		return "INSERT INTO " + table + " (tag, max_id, step) VALUES (?1, ?2, ?3) ON CONFLICT (tag) DO NOTHING"
	}
	return ""
}

// SQL is a Store on a table of tags (see [SQL.Schema]), each reservation one UPDATE.
// Safe for concurrent use by any number of processes.
type SQL struct {
	db              *sql.DB
	dialect         sqldb.Dialect
	table           string
	reserve, insert string
	create          string

	created sqlstore.Created // CreateTable has succeeded
}

// SQLOptions configures an [SQL] store. The zero value uses DefaultTable.
type SQLOptions struct {
	// Table is the table's name, DefaultTable if empty. It may be qualified by a schema
	// ("app.idgen_segment"); a name that breaks the rule of [sqldb.TableError] is refused.
	Table string
}

// NewSQL returns a Store on the table opts.Table in db, which speaks dialect. The table is
// created, if missing, by the first reservation or by CreateTable. A table name that
// breaks the rule of [sqldb.TableError] is refused with a *TableError, an unknown dialect with
// an error matching ErrUnknownDialect. NewSQL does not touch db, which may be nil to get
// only [SQL.Schema].
//
// NewSQL needs PostgreSQL 9.5, MySQL 5.7 or MariaDB, or SQLite 3.35 (for RETURNING) or
// later. Open SQLite with a busy timeout so that processes wait for the write lock
// instead of failing.
func NewSQL(db *sql.DB, dialect sqldb.Dialect, opts SQLOptions) (*SQL, error) {
	table, err := sqlstore.ResolveTable("segment", dialect, opts.Table, DefaultTable)
	if err != nil {
		return nil, err
	}
	s := &SQL{db: db, dialect: dialect, table: table}
	s.reserve, s.insert = statements(dialect, table)
	s.create = createStatement(dialect, table)
	return s, nil
}

// Table returns the name of the table.
func (s *SQL) Table() string { return s.table }

// Schema returns the statements that create the table if it does not exist (one CREATE
// TABLE IF NOT EXISTS), for those who run migrations themselves; the store runs them
// before its first reservation. One row per tag:
//
//   - tag: the business tag;
//   - max_id: the highest ID reserved so far (0 for a new tag); set it higher by hand to
//     start a tag elsewhere, never lower;
//   - step: the size of the latest reservation, for operators;
//   - updated_at: when the latest reservation was made.
func (s *SQL) Schema() []string { return []string{schema(s.dialect, s.table)} }

// CreateTable runs the statements of Schema. Reserve calls it once; call it yourself to
// fail early. Many processes may call it at once on a new database: a CREATE that loses
// the race to another (PostgreSQL fails it on a catalog index; MySQL may deadlock; SQLite
// may be busy) is run again until it finds the table, a bounded number of times.
func (s *SQL) CreateTable(ctx context.Context) error {
	return s.created.Create(ctx, s.db, "segment", s.table, s.Schema())
}

// errNoRow says the tag has no row yet.
var errNoRow = errors.New("no row")

// maxAttempts bounds the runs of a reservation's statements that the database aborted
// for contention (a deadlock, a lock wait timeout, a busy SQLite file).
const maxAttempts = 20

// Reserve implements Store: one UPDATE, preceded the first time a tag is seen by an
// INSERT that does nothing if another process inserted it first. A statement the database
// aborted for contention (sqlerr.Transient: it changed nothing) is run again, at most
// maxAttempts times.
func (s *SQL) Reserve(ctx context.Context, tag string, step int64) (Range, error) {
	if err := checkArgs(tag, step); err != nil {
		return Range{}, err
	}
	if err := s.CreateTable(ctx); err != nil {
		return Range{}, err
	}
	var max int64
	err := s.retry(ctx, func() (err error) {
		max, err = s.update(ctx, tag, step)
		return err
	})
	if errors.Is(err, errNoRow) {
		err = s.retry(ctx, func() error {
			_, err := s.db.ExecContext(ctx, s.insert, tag, step)
			return err
		})
		if err != nil {
			return Range{}, fmt.Errorf("segment: inserting tag %q: %w", tag, err)
		}
		err = s.retry(ctx, func() (err error) {
			max, err = s.update(ctx, tag, step)
			return err
		})
	}
	if err != nil {
		return Range{}, fmt.Errorf("segment: reserving %d IDs of tag %q: %w", step, tag, err)
	}
	return Range{First: max - step + 1, Last: max}, nil
}

// retry runs fn until it returns an error other than a transient one, at most
// maxAttempts times.
func (s *SQL) retry(ctx context.Context, fn func() error) error {
	for attempt := 1; ; attempt++ {
		err := fn()
		if err == nil || attempt >= maxAttempts || !sqlerr.Transient(err) {
			return err
		}
		if sqldb.Pause(ctx, attempt) != nil {
			return err
		}
	}
}

// update runs the reservation, returning the new max_id or errNoRow.
func (s *SQL) update(ctx context.Context, tag string, step int64) (int64, error) {
	if s.dialect == sqldb.MySQL {
		res, err := s.db.ExecContext(ctx, s.reserve, step, step, tag)
		if err != nil {
			return 0, err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return 0, err
		}
		if n == 0 {
			return 0, errNoRow
		}
		return res.LastInsertId()
	}
	var max int64
	err := s.db.QueryRowContext(ctx, s.reserve, step, tag).Scan(&max)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, errNoRow
	}
	return max, err
}

// checkArgs rejects what no store can reserve.
func checkArgs(tag string, step int64) error {
	if tag == "" {
		return errors.New("segment: empty tag")
	}
	if step <= 0 {
		return fmt.Errorf("segment: step %d for tag %q: want a positive step", step, tag)
	}
	return nil
}

// Counter is a tag's counter in a store, as [SQL.Tags] lists it.
type Counter struct {
	// Tag is the business tag.
	Tag string
	// Max is the highest ID reserved so far (0 for a tag never reserved from).
	Max int64
	// Step is the size of the latest reservation (or the step given to Create).
	Step int64
}

// Create adds tag to the table so that its first block starts at first: a row with
// max_id first-1 and step. It fails with an error matching ErrTagExists if the tag has a
// row already, and leaves that row as it is (moving a counter back would repeat IDs).
// first and step must be positive. A tag need not be created: the first reservation of
// a tag the table does not have starts it at 1.
func (s *SQL) Create(ctx context.Context, tag string, first, step int64) error {
	if err := checkArgs(tag, step); err != nil {
		return err
	}
	if first <= 0 {
		return fmt.Errorf("segment: creating tag %q at %d: want a positive first ID", tag, first)
	}
	if err := s.CreateTable(ctx); err != nil {
		return err
	}
	var n int64
	err := s.retry(ctx, func() error {
		res, err := s.db.ExecContext(ctx, s.create, tag, first-1, step)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if (err == nil && n == 0) || (s.dialect == sqldb.MySQL && sqlerr.MySQLDuplicate(err)) {
		return fmt.Errorf("%w: %q", ErrTagExists, tag)
	}
	if err != nil {
		return fmt.Errorf("segment: creating tag %q: %w", tag, err)
	}
	return nil
}

// Tags returns the counter of every tag in the table, ordered by tag: what a service
// that serves every tag of a table (as Leaf does) reads to find them.
func (s *SQL) Tags(ctx context.Context) ([]Counter, error) {
	if err := s.CreateTable(ctx); err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, "SELECT tag, max_id, step FROM "+s.table+" ORDER BY tag")
	if err != nil {
		return nil, fmt.Errorf("segment: listing tags: %w", err)
	}
	defer rows.Close()
	var out []Counter
	for rows.Next() {
		var c Counter
		if err := rows.Scan(&c.Tag, &c.Max, &c.Step); err != nil {
			return nil, fmt.Errorf("segment: listing tags: %w", err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("segment: listing tags: %w", err)
	}
	return out, nil
}
