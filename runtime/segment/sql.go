package segment

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// Dialect is the SQL spoken by the database behind an [SQL] store.
type Dialect uint8

const (
	// Postgres is PostgreSQL 9.5 or later, through pgx's stdlib driver or lib/pq.
	Postgres Dialect = iota + 1
	// MySQL is MySQL 5.7 or later or MariaDB, through go-sql-driver/mysql.
	MySQL
	// SQLite is SQLite 3.35 or later (for RETURNING), through modernc.org/sqlite or another
	// driver: one machine, any number of processes. Open it with a busy timeout
	// (modernc: "?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)") so that
	// processes wait for the write lock instead of failing, and create the table
	// ([SQL.CreateTable]) before starting several processes on a new file, which may
	// otherwise see SQLITE_BUSY while the file is being set up.
	SQLite
)

// DefaultTable is the table an [SQL] store uses when given no name.
const DefaultTable = "idgen_segment"

// String returns the dialect's name.
func (d Dialect) String() string {
	switch d {
	case Postgres:
		return "postgres"
	case MySQL:
		return "mysql"
	case SQLite:
		return "sqlite"
	}
	return "Dialect(" + strconv.Itoa(int(d)) + ")"
}

// Schema returns the statement that creates the table, for those who run migrations
// themselves; an [SQL] store runs it (CREATE TABLE IF NOT EXISTS) before its first
// reservation. One row per tag:
//
//   - tag: the business tag;
//   - max_id: the highest ID reserved so far (0 for a new tag); set it higher by hand to
//     start a tag elsewhere, never lower;
//   - step: the size of the latest reservation, for operators;
//   - updated_at: when the latest reservation was made.
func (d Dialect) Schema(table string) string {
	switch d {
	case Postgres:
		return "CREATE TABLE IF NOT EXISTS " + table + ` (
	tag        varchar(128) NOT NULL PRIMARY KEY,
	max_id     bigint       NOT NULL,
	step       bigint       NOT NULL,
	updated_at timestamptz  NOT NULL DEFAULT now()
)`
	case MySQL:
		return "CREATE TABLE IF NOT EXISTS " + table + ` (
	tag        VARCHAR(128) NOT NULL PRIMARY KEY,
	max_id     BIGINT       NOT NULL,
	step       BIGINT       NOT NULL,
	updated_at TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)
) ENGINE=InnoDB`
	case SQLite:
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
func (d Dialect) statements(table string) (reserve, insert string) {
	switch d {
	case Postgres:
		return "UPDATE " + table + " SET max_id = max_id + $1, step = $1, updated_at = now() WHERE tag = $2 RETURNING max_id",
			"INSERT INTO " + table + " (tag, max_id, step) VALUES ($1, 0, $2) ON CONFLICT (tag) DO NOTHING"
	case MySQL:
		return "UPDATE " + table + " SET max_id = LAST_INSERT_ID(max_id + ?), step = ?, updated_at = CURRENT_TIMESTAMP(6) WHERE tag = ?",
			"INSERT INTO " + table + " (tag, max_id, step) VALUES (?, 0, ?) ON DUPLICATE KEY UPDATE tag = tag"
	case SQLite:
		return "UPDATE " + table + " SET max_id = max_id + ?1, step = ?1, updated_at = strftime('%Y-%m-%d %H:%M:%f', 'now') WHERE tag = ?2 RETURNING max_id",
			"INSERT INTO " + table + " (tag, max_id, step) VALUES (?1, 0, ?2) ON CONFLICT (tag) DO NOTHING"
	}
	return "", ""
}

// SQL is a Store on a table of tags (see [Dialect.Schema]), each reservation one UPDATE.
// Safe for concurrent use by any number of processes.
type SQL struct {
	db              *sql.DB
	dialect         Dialect
	table           string
	reserve, insert string

	mu      sync.Mutex
	created bool
}

// NewSQL returns a Store on table (DefaultTable if empty) in db, which speaks dialect.
// The table is created, if missing, by the first reservation or by CreateTable.
func NewSQL(db *sql.DB, dialect Dialect, table string) (*SQL, error) {
	if table == "" {
		table = DefaultTable
	}
	if err := validTable(table); err != nil {
		return nil, err
	}
	if dialect.Schema(table) == "" {
		return nil, fmt.Errorf("segment: unknown SQL dialect %v", dialect)
	}
	s := &SQL{db: db, dialect: dialect, table: table}
	s.reserve, s.insert = dialect.statements(table)
	return s, nil
}

// validTable accepts names that need no quoting in any dialect: letters, digits and
// underscores, optionally qualified by a schema ("app.idgen_segment").
func validTable(name string) error {
	for part := range strings.SplitSeq(name, ".") {
		ok := part != "" && !('0' <= part[0] && part[0] <= '9')
		for _, r := range part {
			ok = ok && ('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_')
		}
		if !ok {
			return fmt.Errorf("segment: table name %q: want letters, digits and underscores", name)
		}
	}
	return nil
}

// CreateTable creates the table if it does not exist.
func (s *SQL) CreateTable(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.created {
		return nil
	}
	if _, err := s.db.ExecContext(ctx, s.dialect.Schema(s.table)); err != nil {
		return fmt.Errorf("segment: creating table %s: %w", s.table, err)
	}
	s.created = true
	return nil
}

// errNoRow says the tag has no row yet.
var errNoRow = errors.New("no row")

// Reserve implements Store: one UPDATE, preceded the first time a tag is seen by an
// INSERT that does nothing if another process inserted it first.
func (s *SQL) Reserve(ctx context.Context, tag string, step int64) (Range, error) {
	if err := checkArgs(tag, step); err != nil {
		return Range{}, err
	}
	if err := s.CreateTable(ctx); err != nil {
		return Range{}, err
	}
	max, err := s.update(ctx, tag, step)
	if errors.Is(err, errNoRow) {
		if _, err := s.db.ExecContext(ctx, s.insert, tag, step); err != nil {
			return Range{}, fmt.Errorf("segment: inserting tag %q: %w", tag, err)
		}
		max, err = s.update(ctx, tag, step)
	}
	if err != nil {
		return Range{}, fmt.Errorf("segment: reserving %d IDs of tag %q: %w", step, tag, err)
	}
	return Range{First: max - step + 1, Last: max}, nil
}

// update runs the reservation, returning the new max_id or errNoRow.
func (s *SQL) update(ctx context.Context, tag string, step int64) (int64, error) {
	if s.dialect == MySQL {
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
