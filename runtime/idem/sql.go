package idem

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/idgen/idgen/runtime/internal/sqlbind"
	"github.com/idgen/idgen/runtime/internal/sqlerr"
	"github.com/idgen/idgen/runtime/internal/sqlstore"
	"github.com/idgen/idgen/runtime/millis"
	"github.com/idgen/idgen/runtime/sqldb"
)

// DefaultTable is the table an [SQL] store uses when SQLOptions.Table is empty.
const DefaultTable = "idgen_idempotency"

// MaxSQLKeyLen is the longest key, in bytes, an SQL store keeps: the key column is the
// primary key, and 512 bytes fit every index the three databases build.
const MaxSQLKeyLen = 512

// KeyTooLongError is returned by an SQL store given a key longer than MaxSQLKeyLen bytes.
type KeyTooLongError struct {
	Len int // the key's length in bytes
	Max int // the longest key the store keeps
}

// Error implements error.
func (e *KeyTooLongError) Error() string {
	return fmt.Sprintf("idem: key of %d bytes; the store keeps at most %d", e.Len, e.Max)
}

// SQLOptions configures an [SQL] store. The zero value uses DefaultTable and time.Now.
type SQLOptions struct {
	// Table is the table of keys, DefaultTable if empty; it may be qualified by a schema
	// ("app.idempotency") and must follow the rule of sqldb.TableError.
	Table string
	// Now is the clock the store stamps and judges locks and TTLs by, time.Now if nil
	// (tests move it). Every process sharing a table must use clocks that agree.
	Now func() time.Time
}

// SQL is a Store on one table of PostgreSQL, MySQL/MariaDB or SQLite, through
// database/sql. Every transition is one statement: a claim is one upsert that takes the key
// only when it is absent or its time is over, followed by a SELECT of the holder when it
// did not take it; Complete and Release are one UPDATE and one DELETE conditioned on the
// token; Purge is one DELETE. Statements the database aborted for contention (deadlock,
// busy SQLite file) are retried. Safe for concurrent use, by any number of processes.
//
// Times are Unix milliseconds from the clock of the process calling the store
// (SQLOptions.Now), so the clocks of the processes sharing a table must agree (NTP): a
// clock ahead by d takes over in-progress claims d early. Get, like Memory's, returns
// records whose time is over until Purge removes them; Claim treats them as absent.
//
// Call CreateTable once at start, or run the statements of Schema in your migrations.
// Open SQLite in WAL mode with a busy timeout, so that writers wait for each other in
// SQLite rather than retry here: with modernc.org/sqlite,
// "file:app.db?_pragma=journal_mode(WAL)&_pragma=busy_timeout(5000)". Without either,
// many concurrent claims can starve each other of the file lock past the retries.
type SQL struct {
	db      *sql.DB
	dialect sqldb.Dialect
	table   string
	now     func() time.Time

	claim, get, complete, renew, release, purge sqlbind.Stmt

	// foundRows is, on MySQL, what the connection reports as a statement's affected rows:
	// 0 not known yet, rowsChanged (the server's default), or rowsFound (the driver's
	// clientFoundRows=true). With rowsChanged a claim's own result says whether it won.
	foundRows atomic.Int32
}

// What MySQL connections count as affected rows.
const (
	rowsChanged = 1 + iota
	rowsFound
)

// probeKey is the key of the row the MySQL store upserts twice to learn what its
// connections count: a key neither the middleware (its keys start with a digit) nor Once
// (its keys start with "once:") makes, kept expired so that Purge removes it.
const probeKey = "\x00idgen:affected-rows-probe"

// probeSQL upserts the probe row without changing it the second time. $1 the key.
const probeSQL = `INSERT INTO {t} ({key}, fingerprint, state, token, locked_until, expires_at)
	VALUES ($1, '', 2, '', 0, 0) ON DUPLICATE KEY UPDATE expires_at = 0`

// mysqlCounts returns what the store's MySQL connections count as affected rows, asking
// the database the first time: an upsert that leaves its row as it was counts 0 rows
// changed, or 1 row found. 0 when the database could not be asked (the claim then reads
// its row back).
func (s *SQL) mysqlCounts(ctx context.Context) int32 {
	if c := s.foundRows.Load(); c != 0 {
		return c
	}
	st := s.bind(probeSQL)
	var n int64
	for range 2 {
		res, err := s.db.ExecContext(ctx, st.Query, st.Args([]byte(probeKey))...)
		if err != nil {
			return 0
		}
		if n, err = res.RowsAffected(); err != nil {
			return 0
		}
	}
	c := int32(rowsChanged)
	if n != 0 {
		c = rowsFound
	}
	s.foundRows.Store(c)
	return c
}

// NewSQL returns a store on db, which speaks dialect, in the table opts names. It does
// not touch the database (db may be nil to get the Schema): call CreateTable, or run the
// statements of Schema in your migrations.
//
// NewSQL needs PostgreSQL 9.5, MySQL 8 or MariaDB 10.3, or SQLite 3.35 (for RETURNING)
// or later.
func NewSQL(db *sql.DB, dialect sqldb.Dialect, opts SQLOptions) (*SQL, error) {
	table, err := sqlstore.ResolveTable("idem", dialect, opts.Table, DefaultTable)
	if err != nil {
		return nil, err
	}
	s := &SQL{db: db, dialect: dialect, table: table, now: opts.Now}
	if s.now == nil {
		s.now = time.Now
	}
	if dialect == sqldb.MySQL {
		s.claim = s.bind(claimMySQL)
	} else {
		s.claim = s.bind(claimSQL)
	}
	s.get = s.bind(getSQL)
	s.complete = s.bind(completeSQL)
	s.renew = s.bind(renewSQL)
	s.release = s.bind(releaseSQL)
	s.purge = s.bind(purgeSQL)
	return s, nil
}

// Schema returns the statements that create the store's table and its index if they do
// not exist, for those who run migrations themselves. With the default table:
//
// PostgreSQL:
//
//	CREATE TABLE IF NOT EXISTS idgen_idempotency (
//		key          bytea    NOT NULL PRIMARY KEY,
//		fingerprint  bytea    NOT NULL,
//		state        smallint NOT NULL,
//		token        text     NOT NULL,
//		locked_until bigint   NOT NULL,
//		expires_at   bigint   NOT NULL,
//		status       integer,
//		header       json,
//		body         bytea
//	);
//	CREATE INDEX IF NOT EXISTS idgen_idempotency_expires_at ON idgen_idempotency (expires_at);
//
// MySQL and MariaDB:
//
//	CREATE TABLE IF NOT EXISTS idgen_idempotency (
//		`key`        VARBINARY(512) NOT NULL PRIMARY KEY,
//		fingerprint  BLOB           NOT NULL,
//		state        TINYINT        NOT NULL,
//		token        VARCHAR(64)    NOT NULL,
//		locked_until BIGINT         NOT NULL,
//		expires_at   BIGINT         NOT NULL,
//		status       INT,
//		header       JSON,
//		body         LONGBLOB,
//		INDEX idgen_idempotency_expires_at (expires_at)
//	) ENGINE=InnoDB;
//
// SQLite:
//
//	CREATE TABLE IF NOT EXISTS idgen_idempotency (
//		key          BLOB    NOT NULL PRIMARY KEY,
//		fingerprint  BLOB    NOT NULL,
//		state        INTEGER NOT NULL,
//		token        TEXT    NOT NULL,
//		locked_until INTEGER NOT NULL,
//		expires_at   INTEGER NOT NULL,
//		status       INTEGER,
//		header       TEXT,
//		body         BLOB
//	);
//	CREATE INDEX IF NOT EXISTS idgen_idempotency_expires_at ON idgen_idempotency (expires_at);
//
// One row per key:
//
//   - key: the key as bytes, compared exactly (MySQL's text collations would fold case),
//     at most MaxSQLKeyLen bytes;
//   - fingerprint: the fingerprint given to the claim that holds the key;
//   - state: 1 in progress, 2 completed (the values of State);
//   - token: the random token of the claim;
//   - locked_until: when the claim may be taken over, Unix milliseconds;
//   - expires_at: when the row's time is over and a claim or Purge may replace or remove
//     it, Unix milliseconds: locked_until while in progress, the end of the TTL once
//     completed, so that one indexed column serves both;
//   - status, header (a JSON object of http.Header), body: the response, once completed.
func (s *SQL) Schema() []string {
	idx := s.table + "_expires_at"
	on := s.table
	if i := strings.IndexByte(s.table, '.'); i >= 0 {
		switch s.dialect {
		case sqldb.Postgres: // an index lives in its table's schema and is named without it
			idx = s.table[i+1:] + "_expires_at"
		case sqldb.SQLite: // the schema qualifies the index, and the table is named without it
			on = s.table[i+1:]
		}
	}
	switch s.dialect {
	case sqldb.Postgres:
		return []string{
			"CREATE TABLE IF NOT EXISTS " + s.table + ` (
	key          bytea    NOT NULL PRIMARY KEY,
	fingerprint  bytea    NOT NULL,
	state        smallint NOT NULL,
	token        text     NOT NULL,
	locked_until bigint   NOT NULL,
	expires_at   bigint   NOT NULL,
	status       integer,
	header       json,
	body         bytea
)`,
			"CREATE INDEX IF NOT EXISTS " + idx + " ON " + on + " (expires_at)",
		}
	case sqldb.MySQL:
		if i := strings.IndexByte(idx, '.'); i >= 0 {
			idx = idx[i+1:]
		}
		return []string{"CREATE TABLE IF NOT EXISTS " + s.table + ` (
	` + "`key`" + `        VARBINARY(512) NOT NULL PRIMARY KEY,
	fingerprint  BLOB           NOT NULL,
	state        TINYINT        NOT NULL,
	token        VARCHAR(64)    NOT NULL,
	locked_until BIGINT         NOT NULL,
	expires_at   BIGINT         NOT NULL,
	status       INT,
	header       JSON,
	body         LONGBLOB,
	INDEX ` + idx + ` (expires_at)
) ENGINE=InnoDB`}
	default:
		return []string{
			"CREATE TABLE IF NOT EXISTS " + s.table + ` (
	key          BLOB    NOT NULL PRIMARY KEY,
	fingerprint  BLOB    NOT NULL,
	state        INTEGER NOT NULL,
	token        TEXT    NOT NULL,
	locked_until INTEGER NOT NULL,
	expires_at   INTEGER NOT NULL,
	status       INTEGER,
	header       TEXT,
	body         BLOB
)`,
			"CREATE INDEX IF NOT EXISTS " + idx + " ON " + on + " (expires_at)",
		}
	}
}

// CreateTable runs the statements of Schema: it creates the table and its index if they
// do not exist, safely when many processes start at once on a new database (a statement
// that lost the creation race to another process is run again).
func (s *SQL) CreateTable(ctx context.Context) error {
	if err := sqldb.CreateTables(ctx, s.db, s.Schema()...); err != nil {
		return fmt.Errorf("idem: creating table %s: %w", s.table, err)
	}
	return nil
}

// The statements, written once with $n placeholders and rewritten per dialect by bind.
// {t} is the table and {key} the key column, quoted for MySQL where KEY is reserved.
const (
	// claimSQL takes the key in one statement. The conflict clause tests the row as it is
	// when the statement reaches it, after any concurrent claim has committed, so of many
	// concurrent claims exactly one gets a row back. $1 key, $2 fingerprint, $3 token,
	// $4 end of the lock, $5 now.
	claimSQL = `INSERT INTO {t} AS r ({key}, fingerprint, state, token, locked_until, expires_at)
	VALUES ($1, $2, 1, $3, $4, $4)
	ON CONFLICT ({key}) DO UPDATE SET fingerprint = excluded.fingerprint, state = 1,
		token = excluded.token, locked_until = excluded.locked_until,
		expires_at = excluded.expires_at, status = NULL, header = NULL, body = NULL
	WHERE r.expires_at <= $5
	RETURNING token`

	// claimMySQL is claimSQL for MySQL, whose upsert has neither WHERE nor RETURNING:
	// every assignment tests expiry, and expires_at is assigned last, so that each test
	// reads the old value whether the server assigns in order (MySQL) or all at once
	// (MariaDB's SIMULTANEOUS_ASSIGNMENT). Whether the claim won is in the statement's
	// affected rows (see Claim), or read back by token.
	claimMySQL = `INSERT INTO {t} ({key}, fingerprint, state, token, locked_until, expires_at)
	VALUES ($1, $2, 1, $3, $4, $4)
	ON DUPLICATE KEY UPDATE
		fingerprint = IF(expires_at <= $5, $2, fingerprint),
		state = IF(expires_at <= $5, 1, state),
		token = IF(expires_at <= $5, $3, token),
		locked_until = IF(expires_at <= $5, $4, locked_until),
		status = IF(expires_at <= $5, NULL, status),
		header = IF(expires_at <= $5, NULL, header),
		body = IF(expires_at <= $5, NULL, body),
		expires_at = IF(expires_at <= $5, $4, expires_at)`

	getSQL = `SELECT fingerprint, state, token, locked_until, expires_at, status, header, body
	FROM {t} WHERE {key} = $1`

	// completeSQL: $1 key, $2 token, $3 end of the TTL, $4 status, $5 header, $6 body.
	completeSQL = `UPDATE {t} SET state = 2, expires_at = $3, status = $4, header = $5, body = $6
	WHERE {key} = $1 AND token = $2 AND state = 1`

	// renewSQL: $1 key, $2 token, $3 end of the lock.
	renewSQL = `UPDATE {t} SET locked_until = $3, expires_at = $3
	WHERE {key} = $1 AND token = $2 AND state = 1`

	releaseSQL = `DELETE FROM {t} WHERE {key} = $1 AND token = $2 AND state = 1`

	purgeSQL = `DELETE FROM {t} WHERE expires_at <= $1`
)

// bind expands tmpl for the store's dialect and table.
func (s *SQL) bind(tmpl string) sqlbind.Stmt {
	key, style := "key", sqlbind.Dollar
	switch s.dialect {
	case sqldb.MySQL:
		key, style = "`key`", sqlbind.Positional
	case sqldb.SQLite:
		style = sqlbind.Numbered
	}
	return sqlbind.Bind(strings.NewReplacer("{t}", s.table, "{key}", key).Replace(tmpl), style)
}

// maxVanished bounds the claims a Claim retries when the holder it lost to is gone before
// it can be read (released or purged in between).
const maxVanished = 100

// Claim implements Store. On PostgreSQL and SQLite it is one INSERT ... ON CONFLICT DO
// UPDATE ... WHERE expired ... RETURNING; on MySQL one INSERT ... ON DUPLICATE KEY UPDATE
// whose every assignment tests expiry, and whose affected rows say whether it took the key
// (unless the DSN sets clientFoundRows=true, under which a row left as it was counts too:
// then the row is read back, one more statement per claim). When that did not take the
// key, one SELECT reads the row: it is ours if it carries our token, and otherwise
// the holder's. A holder gone before the SELECT (it released, or Purge removed it) makes
// the claim start again.
func (s *SQL) Claim(ctx context.Context, key, fingerprint string, lock time.Duration) (string, *Record, error) {
	if err := checkKey(key); err != nil {
		return "", nil, err
	}
	token := NewToken()
	changed := s.dialect == sqldb.MySQL && s.mysqlCounts(ctx) == rowsChanged
	for range maxVanished {
		now := s.now()
		args := s.claim.Args([]byte(key), []byte(fingerprint), token, millis.After(now, lock), millis.After(now, 0))
		won := false
		err := s.retry(ctx, func() error {
			if s.dialect == sqldb.MySQL {
				res, err := s.db.ExecContext(ctx, s.claim.Query, args...)
				if err != nil || !changed {
					return err
				}
				// 1: inserted; 2: an expired row taken over (its token changed); 0: the
				// row of a live holder, left as it was.
				n, err := res.RowsAffected()
				won = err == nil && n > 0
				return err
			}
			var got string
			err := s.db.QueryRowContext(ctx, s.claim.Query, args...).Scan(&got)
			if errors.Is(err, sql.ErrNoRows) {
				return nil
			}
			won = err == nil
			return err
		})
		if err != nil {
			return "", nil, fmt.Errorf("idem: claiming a key in %s: %w", s.table, err)
		}
		if won {
			return token, nil, nil
		}
		rec, holder, err := s.read(ctx, key)
		switch {
		case errors.Is(err, ErrNotFound):
			continue
		case err != nil:
			return "", nil, err
		case holder == token:
			return token, nil, nil
		}
		return "", rec, nil
	}
	return "", nil, fmt.Errorf("idem: claiming a key in %s: its holder vanished %d times before it could be read", s.table, maxVanished)
}

// Complete implements Store with one UPDATE conditioned on the token and the state.
func (s *SQL) Complete(ctx context.Context, key, token string, resp Response, ttl time.Duration) error {
	if err := checkKey(key); err != nil {
		return err
	}
	var header any
	if resp.Header != nil {
		b, err := json.Marshal(resp.Header)
		if err != nil {
			return fmt.Errorf("idem: encoding the response header: %w", err)
		}
		header = string(b)
	}
	args := s.complete.Args([]byte(key), token, millis.After(s.now(), ttl), int64(resp.Status), header, resp.Body)
	return s.change(ctx, "completing", s.complete.Query, args)
}

// Release implements Store with one DELETE conditioned on the token and the state.
func (s *SQL) Release(ctx context.Context, key, token string) error {
	if err := checkKey(key); err != nil {
		return err
	}
	return s.change(ctx, "releasing", s.release.Query, s.release.Args([]byte(key), token))
}

// Renew implements Store with one UPDATE conditioned on the token and the state. MySQL
// counts only rows whose values changed, so where it counts none (a renewal within the
// millisecond of the previous one) the row is read to tell that from a lost claim.
func (s *SQL) Renew(ctx context.Context, key, token string, lock time.Duration) error {
	if err := checkKey(key); err != nil {
		return err
	}
	err := s.change(ctx, "renewing", s.renew.Query, s.renew.Args([]byte(key), token, millis.After(s.now(), lock)))
	if errors.Is(err, ErrNotHolder) && s.dialect == sqldb.MySQL {
		rec, holder, rerr := s.read(ctx, key)
		if rerr == nil && holder == token && rec.State == InProgress {
			return nil
		}
	}
	return err
}

// change runs a statement that changes the row of a claim, and returns ErrNotHolder when
// it changed nothing. (Complete and Release change the state or remove the row, so even
// MySQL, which counts only rows whose values changed, counts the row; Renew handles the
// renewal that changed no value itself.)
func (s *SQL) change(ctx context.Context, doing, q string, args []any) error {
	var n int64
	err := s.retry(ctx, func() error {
		res, err := s.db.ExecContext(ctx, q, args...)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	switch {
	case err != nil:
		return fmt.Errorf("idem: %s a key in %s: %w", doing, s.table, err)
	case n == 0:
		return ErrNotHolder
	}
	return nil
}

// Get implements Store. It returns records whose time is over until Purge removes them.
func (s *SQL) Get(ctx context.Context, key string) (*Record, error) {
	if err := checkKey(key); err != nil {
		return nil, err
	}
	rec, _, err := s.read(ctx, key)
	return rec, err
}

// read returns the record of key and its token, or ErrNotFound.
func (s *SQL) read(ctx context.Context, key string) (*Record, string, error) {
	var (
		fp             []byte
		state          int64
		token          string
		locked, expire int64
		status         sql.NullInt64
		header         sql.NullString
		body           []byte
	)
	err := s.retry(ctx, func() error {
		return s.db.QueryRowContext(ctx, s.get.Query, s.get.Args([]byte(key))...).
			Scan(&fp, &state, &token, &locked, &expire, &status, &header, &body)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return nil, "", ErrNotFound
	}
	if err != nil {
		return nil, "", fmt.Errorf("idem: reading a key in %s: %w", s.table, err)
	}
	rec := &Record{Key: key, Fingerprint: string(fp), State: State(state), LockedUntil: fromMs(locked)}
	if rec.State == Completed {
		rec.ExpiresAt = fromMs(expire)
		rec.Response = &Response{Status: int(status.Int64), Body: body}
		if header.Valid {
			if err := json.Unmarshal([]byte(header.String), &rec.Response.Header); err != nil {
				return nil, "", fmt.Errorf("idem: decoding the response header of a key in %s: %w", s.table, err)
			}
		}
	}
	return rec, token, nil
}

// Purge implements Store with one DELETE of the rows whose expires_at is past.
func (s *SQL) Purge(ctx context.Context) (int, error) {
	var n int64
	err := s.retry(ctx, func() error {
		res, err := s.db.ExecContext(ctx, s.purge.Query, s.purge.Args(millis.After(s.now(), 0))...)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("idem: purging %s: %w", s.table, err)
	}
	return int(n), nil
}

func checkKey(key string) error {
	if len(key) > MaxSQLKeyLen {
		return &KeyTooLongError{Len: len(key), Max: MaxSQLKeyLen}
	}
	return nil
}

func fromMs(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

// retryFor bounds the time a statement the database aborted for contention is retried.
const retryFor = 5 * time.Second

// retry runs fn until it succeeds, fails for a reason other than contention, or has been
// retried for retryFor. Every statement it runs is a single statement in its own
// transaction, so a run that failed left nothing behind.
func (s *SQL) retry(ctx context.Context, fn func() error) error {
	var deadline time.Time
	for attempt := 0; ; attempt++ {
		err := fn()
		if err == nil || !sqlerr.Transient(err) {
			return err
		}
		if attempt == 0 {
			deadline = time.Now().Add(retryFor)
		} else if time.Now().After(deadline) {
			return err
		}
		if perr := sqldb.Pause(ctx, attempt); perr != nil {
			return err
		}
	}
}
