package lease

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/idgen/idgen/runtime/internal/sqlbind"
	"github.com/idgen/idgen/runtime/internal/sqlerr"
	"github.com/idgen/idgen/runtime/internal/sqlstore"
	"github.com/idgen/idgen/runtime/sqldb"
)

// DefaultTable is the lease table an [SQL] backend uses when given no name.
const DefaultTable = "idgen_lease"

// schema returns the statement that creates table, which CheckTable accepted, in d.
func schema(d sqldb.Dialect, table string) string {
	switch d {
	case sqldb.Postgres:
		return "CREATE TABLE IF NOT EXISTS " + table + ` (
	worker_id       bigint      NOT NULL PRIMARY KEY,
	holder          varchar(64) NOT NULL,
	expires_ms      bigint      NOT NULL,
	last_ms         bigint      NOT NULL,
	prev_expires_ms bigint      NOT NULL
)`
	case sqldb.MySQL:
		return "CREATE TABLE IF NOT EXISTS " + table + ` (
	worker_id       BIGINT      NOT NULL PRIMARY KEY,
	holder          VARCHAR(64) NOT NULL,
	expires_ms      BIGINT      NOT NULL,
	last_ms         BIGINT      NOT NULL,
	prev_expires_ms BIGINT      NOT NULL
) ENGINE=InnoDB`
	case sqldb.SQLite:
		return "CREATE TABLE IF NOT EXISTS " + table + ` (
	worker_id       INTEGER NOT NULL PRIMARY KEY,
	holder          TEXT    NOT NULL,
	expires_ms      INTEGER NOT NULL,
	last_ms         INTEGER NOT NULL,
	prev_expires_ms INTEGER NOT NULL
)`
	}
	return ""
}

// The statements, written once with $n placeholders and rewritten per dialect by bind.
// {t} is the table, {now} the database's clock in Unix milliseconds, {greatest}/{least}
// the two-argument maximum and minimum, {dual} what MySQL needs to SELECT with a WHERE and
// no table.
const (
	// freeSQL finds the lowest worker ID in [$4, $3] that no live lease holds: $4 if it
	// has no row, the ID above a row in the range whose successor has none, or the lowest
	// expired row in the range.
	freeSQL = `SELECT min(w) AS w FROM (
		SELECT {min} AS w{dual} WHERE NOT EXISTS (SELECT 1 FROM {t} WHERE worker_id = $4)
		UNION ALL
		SELECT a.worker_id + 1 FROM {t} a
		WHERE a.worker_id >= $4 AND a.worker_id < $3 AND NOT EXISTS (SELECT 1 FROM {t} b WHERE b.worker_id = a.worker_id + 1)
		UNION ALL
		SELECT worker_id FROM {t} WHERE worker_id >= $4 AND worker_id <= $3 AND expires_ms <= {now}
	) f`

	// claimSQL inserts or takes over that ID in one statement. The conflict clause
	// re-checks expiry on the row as it is when the statement gets to it, so of two
	// claimers racing for one ID exactly one gets a row back; the other retries.
	claimSQL = `INSERT INTO {t} AS l (worker_id, holder, expires_ms, last_ms, prev_expires_ms)
	SELECT c.w, $1, n.t + $2, 0, 0
	FROM (SELECT {now} AS t) n, (` + freeSQL + `) c
	WHERE c.w IS NOT NULL
	ON CONFLICT (worker_id) DO UPDATE
	SET holder = excluded.holder, expires_ms = excluded.expires_ms, prev_expires_ms = l.expires_ms
	WHERE l.expires_ms <= excluded.expires_ms - $2
	RETURNING worker_id, last_ms, prev_expires_ms, expires_ms`

	// claimMySQL is claimSQL for MySQL, which has neither a WHERE on its upsert nor
	// RETURNING: every assignment tests expiry (expires_ms is assigned last, so the tests
	// read the old value under either assignment order MariaDB offers), and the row is
	// then read back by its holder token in the same transaction.
	claimMySQL = `INSERT INTO {t} (worker_id, holder, expires_ms, last_ms, prev_expires_ms)
	SELECT c.w, $1, n.t + $2, 0, 0
	FROM (SELECT {now} AS t) n, (` + freeSQL + `) c
	WHERE c.w IS NOT NULL
	ON DUPLICATE KEY UPDATE
	prev_expires_ms = IF({t}.expires_ms <= VALUES(expires_ms) - $2, {t}.expires_ms, {t}.prev_expires_ms),
	holder = IF({t}.expires_ms <= VALUES(expires_ms) - $2, VALUES(holder), {t}.holder),
	expires_ms = IF({t}.expires_ms <= VALUES(expires_ms) - $2, VALUES(expires_ms), {t}.expires_ms)`
	mineMySQL = `SELECT worker_id, last_ms, prev_expires_ms, expires_ms FROM {t} WHERE holder = $1`

	heldSQL    = `SELECT count(*) FROM {t} WHERE worker_id >= $2 AND worker_id <= $1 AND expires_ms > {now}`
	renewSQL   = `UPDATE {t} SET expires_ms = {now} + $3, last_ms = {greatest}(last_ms, $4) WHERE worker_id = $1 AND holder = $2 AND expires_ms > {now}`
	releaseSQL = `UPDATE {t} SET last_ms = {greatest}(last_ms, $3), expires_ms = {least}(expires_ms, {now}) WHERE worker_id = $1 AND holder = $2`
	stateSQL   = `SELECT holder, expires_ms, {now} FROM {t} WHERE worker_id = $1`
)

// bind expands the template for dialect d and table.
func bind(d sqldb.Dialect, table, tmpl string) sqlbind.Stmt {
	var now, greatest, least, dual, min string
	switch d {
	case sqldb.Postgres:
		now, greatest, least, min = "floor(extract(epoch FROM now()) * 1000)::bigint", "greatest", "least", "CAST($4 AS bigint)"
	case sqldb.MySQL:
		now, greatest, least, dual, min = "FLOOR(UNIX_TIMESTAMP(NOW(3)) * 1000)", "GREATEST", "LEAST", " FROM DUAL", "CAST($4 AS SIGNED)"
	case sqldb.SQLite:
		now, greatest, least, min = "CAST(unixepoch('subsec') * 1000 AS INTEGER)", "max", "min", "CAST($4 AS INTEGER)"
	}
	q := strings.NewReplacer("{t}", table, "{now}", now, "{greatest}", greatest, "{least}", least, "{dual}", dual, "{min}", min).Replace(tmpl)
	return sqlstore.Bind(d, q)
}

// SQL is a Backend on a table in PostgreSQL, MySQL/MariaDB or SQLite, through
// database/sql. It creates its table before its first claim. Times that decide expiry are
// read from the database's clock. Safe for concurrent use.
type SQL struct {
	db      *sql.DB
	dialect sqldb.Dialect
	table   string

	claim, mine, held, renew, release, state sqlbind.Stmt

	created sqlstore.Created // CreateTable has succeeded
}

// SQLOptions configures an [SQL] backend. The zero value uses DefaultTable.
type SQLOptions struct {
	// Table is the lease table's name, DefaultTable if empty. It may be qualified by a
	// schema ("leases.idgen_lease"); a name that breaks the rule of [sqldb.TableError] is
	// refused.
	Table string
}

// NewSQL returns a backend on the table opts.Table of db, which speaks dialect. A table
// name that breaks the rule of [sqldb.TableError] is refused with a *TableError, an unknown
// dialect with an error matching ErrUnknownDialect. NewSQL does not touch db, which may be
// nil to get only [SQL.Schema].
//
// NewSQL needs PostgreSQL 9.5, MySQL 8 or MariaDB 10.3, or SQLite 3.42 (for
// unixepoch('subsec'); one machine, any number of processes) or later. Open SQLite in WAL
// mode with a busy timeout; without one, a step that finds the database busy is retried
// only about 100 times over a few hundred milliseconds.
func NewSQL(db *sql.DB, dialect sqldb.Dialect, opts SQLOptions) (*SQL, error) {
	table, err := sqlstore.ResolveTable("lease", dialect, opts.Table, DefaultTable)
	if err != nil {
		return nil, err
	}
	s := &SQL{db: db, dialect: dialect, table: table}
	s.claim = bind(dialect, table, claimSQL)
	if dialect == sqldb.MySQL {
		s.claim = bind(dialect, table, claimMySQL)
		s.mine = bind(dialect, table, mineMySQL)
	}
	s.held = bind(dialect, table, heldSQL)
	s.renew = bind(dialect, table, renewSQL)
	s.release = bind(dialect, table, releaseSQL)
	s.state = bind(dialect, table, stateSQL)
	return s, nil
}

// Table returns the name of the lease table.
func (s *SQL) Table() string { return s.table }

// Schema returns the statements that create the lease table if it does not exist (one
// CREATE TABLE IF NOT EXISTS), for those who run migrations themselves; the backend runs
// them before its first claim. One row per worker ID ever leased:
//
//   - worker_id: the worker ID;
//   - holder: the random token of the latest holder;
//   - expires_ms: when its lease ends, Unix milliseconds of the database's clock (a release
//     sets it to the time of the release);
//   - last_ms: the latest tick any holder recorded issuing in, Unix milliseconds;
//   - prev_expires_ms: expires_ms of the previous holder, kept by the claim that replaced it.
func (s *SQL) Schema() []string { return []string{schema(s.dialect, s.table)} }

// CreateTable runs the statements of Schema. Acquire calls it once; call it yourself to
// fail early. Many processes may call it at once on a new database: a CREATE that loses
// the race to another (PostgreSQL fails it on a catalog index; MySQL may deadlock; SQLite
// may be busy) is run again until it finds the table, a bounded number of times.
func (s *SQL) CreateTable(ctx context.Context) error {
	return s.created.Create(ctx, s.db, "lease", s.table, s.Schema())
}

// maxAttempts bounds the claims an Acquire makes when other holders keep winning the ID it
// picked, and the retries of a transaction the database aborted (deadlock, busy).
const maxAttempts = 100

// Acquire implements Backend. On PostgreSQL and SQLite it is one INSERT ... ON CONFLICT DO
// UPDATE ... WHERE expired ... RETURNING statement (on SQLite inside BEGIN IMMEDIATE, so
// the read that picks the ID is made under the write lock); on MySQL, one INSERT ... SELECT
// ... ON DUPLICATE KEY UPDATE whose every assignment re-checks expiry, and a read of the
// row by holder token, in one transaction.
func (s *SQL) Acquire(ctx context.Context, max int64, token string, ttl time.Duration) (Claim, error) {
	return s.AcquireRange(ctx, 0, max, token, ttl)
}

// AcquireRange implements RangeBackend: Acquire within [min, max], so that a fleet
// sharing worker IDs with another (the old service during a switch) keeps off its range.
func (s *SQL) AcquireRange(ctx context.Context, min, max int64, token string, ttl time.Duration) (Claim, error) {
	if min < 0 || max < min {
		return Claim{}, fmt.Errorf("lease: worker ID range [%d, %d] is empty or negative", min, max)
	}
	if err := s.CreateTable(ctx); err != nil {
		return Claim{}, err
	}
	for attempt := 0; ; attempt++ {
		var c Claim
		won := false
		err := s.run(ctx, s.dialect != sqldb.Postgres, func(q querier) error {
			var w, last, prev, exp int64
			var err error
			if s.dialect == sqldb.MySQL {
				if _, err = q.ExecContext(ctx, s.claim.Query, s.claim.Args(token, ttlMs(ttl), max, min)...); err == nil {
					err = q.QueryRowContext(ctx, s.mine.Query, s.mine.Args(token)...).Scan(&w, &last, &prev, &exp)
				}
			} else {
				err = q.QueryRowContext(ctx, s.claim.Query, s.claim.Args(token, ttlMs(ttl), max, min)...).Scan(&w, &last, &prev, &exp)
			}
			if err == nil {
				// prev_expires_ms is 0 only on a row this claim inserted: a takeover copies
				// the old expires_ms, which is never 0.
				c, won = Claim{Worker: w, Last: fromMs(last), Prev: fromMs(prev), Expires: fromMs(exp), Fresh: prev == 0}, true
				return nil
			}
			if !errors.Is(err, sql.ErrNoRows) {
				return err
			}
			// No row: every ID is held, or another holder took the one picked.
			var n int64
			if err := q.QueryRowContext(ctx, s.held.Query, s.held.Args(max, min)...).Scan(&n); err != nil {
				return err
			}
			if n > max-min {
				return &AllTakenError{Min: min, Max: max}
			}
			return nil
		})
		switch {
		case err != nil:
			var all *AllTakenError
			if errors.As(err, &all) {
				return Claim{}, err
			}
			return Claim{}, fmt.Errorf("lease: claiming a worker ID in %s: %w", s.table, err)
		case won:
			return c, nil
		case attempt+1 >= maxAttempts:
			return Claim{}, fmt.Errorf("lease: claiming a worker ID in %s: lost %d races to other holders", s.table, maxAttempts)
		}
		if err := pause(ctx); err != nil {
			return Claim{}, err
		}
	}
}

// Renew implements Backend with one UPDATE conditioned on the token and on the lease not
// having expired.
func (s *SQL) Renew(ctx context.Context, worker int64, token string, ttl time.Duration, last time.Time) error {
	err := s.run(ctx, s.dialect == sqldb.SQLite, func(q querier) error {
		res, err := q.ExecContext(ctx, s.renew.Query, s.renew.Args(worker, token, ttlMs(ttl), toMs(last))...)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 1 {
			return err
		}
		return s.lost(ctx, q, worker, token, true)
	})
	return s.wrap("renewing", worker, err)
}

// Release implements Backend with one UPDATE conditioned on the token; it keeps last_ms
// and sets expires_ms to the database's clock.
func (s *SQL) Release(ctx context.Context, worker int64, token string, last time.Time) error {
	err := s.run(ctx, s.dialect == sqldb.SQLite, func(q querier) error {
		res, err := q.ExecContext(ctx, s.release.Query, s.release.Args(worker, token, toMs(last))...)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 1 {
			return err
		}
		return s.lost(ctx, q, worker, token, false)
	})
	return s.wrap("releasing", worker, err)
}

func (s *SQL) wrap(doing string, worker int64, err error) error {
	var lost *LostError
	if err == nil || errors.As(err, &lost) {
		return err
	}
	return fmt.Errorf("lease: %s worker ID %d in %s: %w", doing, worker, s.table, err)
}

// lost explains an UPDATE that changed no row: the token does not hold worker, or (renew)
// the lease expired. It returns nil when the token does hold it: MySQL counts only rows
// whose values changed, and an update in the same millisecond changes none.
func (s *SQL) lost(ctx context.Context, q querier, worker int64, token string, renew bool) error {
	var holder string
	var expires, now int64
	err := q.QueryRowContext(ctx, s.state.Query, s.state.Args(worker)...).Scan(&holder, &expires, &now)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return &LostError{Worker: worker}
	case err != nil:
		return err
	case holder != token:
		return &LostError{Worker: worker, Taken: true}
	case renew && expires <= now:
		return &LostError{Worker: worker, Expired: fromMs(expires)}
	}
	return nil
}

// querier is what *sql.DB, *sql.Tx and *sql.Conn share.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// run runs fn, in a transaction if tx is set (BEGIN IMMEDIATE on SQLite), retrying when
// the database aborted it for contention: a deadlock or lock timeout (MySQL, PostgreSQL
// under SERIALIZABLE) or a busy database (SQLite).
func (s *SQL) run(ctx context.Context, tx bool, fn func(querier) error) error {
	for attempt := 1; ; attempt++ {
		var err error
		switch {
		case !tx:
			err = fn(s.db)
		case s.dialect == sqldb.SQLite:
			err = s.immediate(ctx, fn)
		default:
			err = s.inTx(ctx, fn)
		}
		if err == nil || attempt >= maxAttempts || !sqlerr.Transient(err) {
			return err
		}
		if perr := pause(ctx); perr != nil {
			return err
		}
	}
}

func (s *SQL) inTx(ctx context.Context, fn func(querier) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// immediate runs fn inside BEGIN IMMEDIATE on one connection: the write lock is taken
// before fn reads, so what fn reads cannot change before it writes. database/sql's BeginTx
// cannot ask for that, so the transaction is driven by hand on a dedicated connection.
func (s *SQL) immediate(ctx context.Context, fn func(querier) error) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return err
	}
	err = fn(conn)
	if err == nil {
		_, err = conn.ExecContext(ctx, "COMMIT")
	}
	if err != nil {
		if _, rerr := conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK"); rerr != nil {
			// A connection that may still be inside the transaction must not go back to
			// the pool: database/sql closes one whose Raw returns ErrBadConn.
			conn.Raw(func(any) error { return driver.ErrBadConn })
		}
	}
	return err
}
