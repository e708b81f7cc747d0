package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/idgen/idgen/runtime/internal/sqlbind"
	"github.com/idgen/idgen/runtime/internal/sqlerr"
	"github.com/idgen/idgen/runtime/internal/sqlstore"
	"github.com/idgen/idgen/runtime/millis"
	"github.com/idgen/idgen/runtime/sqldb"
)

// MaxKeyLen is the longest key, in bytes, a Ledger records: the key column is the primary
// key, and 512 bytes fit every index the three databases build.
const MaxKeyLen = 512

// KeyTooLongError is returned for a key longer than MaxKeyLen bytes.
type KeyTooLongError struct {
	Len int // the key's length in bytes
	Max int // the longest key the ledger records
}

// Error implements error.
func (e *KeyTooLongError) Error() string {
	return fmt.Sprintf("ledger: key of %d bytes; a ledger keeps at most %d", e.Len, e.Max)
}

func checkKey(key string) error {
	if len(key) > MaxKeyLen {
		return &KeyTooLongError{Len: len(key), Max: MaxKeyLen}
	}
	return nil
}

// DefaultTable is the table a Ledger uses when Options.Table is empty.
const DefaultTable = "idgen_done"

// DefaultTTL is how long a Ledger remembers a key when Options.TTL is zero.
const DefaultTTL = 7 * 24 * time.Hour

// Execer runs a statement: *sql.Tx, GORM's Statement.ConnPool inside a transaction, and
// ent's generated Tx with the sql/execquery feature are Execers (so are *sql.DB and
// *sql.Conn, for CreateTable and Purge; Record needs the work's transaction).
type Execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// Options configures a Ledger. The zero value uses DefaultTable, DefaultTTL and time.Now.
type Options struct {
	// Table is the table of keys, DefaultTable if empty; the rule of sqldb.TableError.
	Table string
	// TTL is how long a key is remembered: a message redelivered later than that runs
	// again. Longer than the broker can redeliver; DefaultTTL if zero.
	TTL time.Duration
	// Now is the clock keys expire by, time.Now if nil (tests move it).
	Now func() time.Time
	// ReadUnscoped makes a scoped key (ScopedKey), which the broker adapters record, count
	// as recorded when its unscoped key is, within its TTL: the bare message IDs that
	// versions before scoping recorded. Turn it on for one TTL after upgrading from such a
	// version, so that a message redelivered, or retried by its producer, across the
	// upgrade is not run again; then turn it off, since a bare key stands for a message ID
	// on every queue at once. It costs one more read per record (per batch) meanwhile, and
	// needs transactions that can query (Queryer).
	ReadUnscoped bool
}

// Ledger records message keys in the same transaction as the work they stand for, for
// consumers whose effects live in one SQL database: the work and its key commit together
// or not at all, so a redelivered message finds its key and does nothing, and a consumer
// that dies mid-work leaves neither. No lock can lapse and no claim needs renewing: two
// consumers with one key serialise on the key's row, and the second finds it committed
// (or, if the first rolled back, runs). Under PostgreSQL's REPEATABLE READ or
// SERIALIZABLE the second gets a serialization failure instead of waiting, and on MySQL
// transactions that meet one expired key at once can deadlock on its row (so can those
// that meet any recorded key, through an Execer that is not a Queryer): OnceTx runs such
// transactions again; callers of Record in their own transactions must do the same
// (Retry). Use idem.Once for work whose effects are outside the database.
//
// Record inserts first: one statement when the key is new. On PostgreSQL and SQLite it is
// INSERT ... ON CONFLICT DO UPDATE ... WHERE expired, which never fails (a failed
// statement would abort a PostgreSQL transaction); on MySQL a plain INSERT (MySQL keeps
// the transaction usable after a duplicate-key error) and, on a duplicate, a read of the
// key's expiry in share mode (the lock the duplicate already took) and an UPDATE only
// when the key has expired (a redelivery costs two statements there, one elsewhere).
type Ledger struct {
	dialect      sqldb.Dialect
	table        string
	ttl          time.Duration
	now          func() time.Time
	readUnscoped bool
	// The insert; on MySQL, after the insert met the key, expiry reads when it expires
	// and takeover takes it if it has.
	record, expiry, takeover, purge sqlbind.Stmt
}

// New returns a Ledger for databases speaking dialect. It touches no database: call
// CreateTable, or run the statements of Schema in your migrations.
//
// New needs PostgreSQL, MySQL 8 or MariaDB 10.3, or SQLite 3.35 or later.
func New(dialect sqldb.Dialect, opts Options) (*Ledger, error) {
	table, err := sqlstore.ResolveTable("ledger", dialect, opts.Table, DefaultTable)
	if err != nil {
		return nil, err
	}
	l := &Ledger{dialect: dialect, table: table, ttl: opts.TTL, now: opts.Now, readUnscoped: opts.ReadUnscoped}
	if l.now == nil {
		l.now = time.Now
	}
	if l.ttl <= 0 {
		l.ttl = DefaultTTL
	}
	key := "key"
	if dialect == sqldb.MySQL {
		key = "`key`"
	}
	bind := func(q string) sqlbind.Stmt {
		return sqlstore.Bind(dialect, strings.NewReplacer("{t}", l.table, "{key}", key).Replace(q))
	}
	if dialect == sqldb.MySQL {
		l.record = bind(`INSERT INTO {t} ({key}, expires_at) VALUES ($1, $2)`)
		l.expiry = bind(`SELECT expires_at FROM {t} WHERE {key} = $1 LOCK IN SHARE MODE`)
		l.takeover = bind(`UPDATE {t} SET expires_at = $2 WHERE {key} = $1 AND expires_at <= $3`)
	} else {
		l.record = bind(`INSERT INTO {t} AS d ({key}, expires_at) VALUES ($1, $2)
	ON CONFLICT ({key}) DO UPDATE SET expires_at = excluded.expires_at WHERE d.expires_at <= $3`)
	}
	l.purge = bind(`DELETE FROM {t} WHERE expires_at <= $1`)
	return l, nil
}

// Schema returns the statements that create the ledger's table and its index if they do
// not exist. One row per key: key (bytes, compared exactly, at most MaxKeyLen) and
// expires_at (Unix milliseconds after which the key is forgotten).
func (l *Ledger) Schema() []string {
	idx, on := l.table+"_expires_at", l.table
	if i := strings.IndexByte(l.table, '.'); i >= 0 {
		switch l.dialect {
		case sqldb.Postgres:
			idx = l.table[i+1:] + "_expires_at"
		case sqldb.SQLite:
			on = l.table[i+1:]
		case sqldb.MySQL:
			idx = l.table[i+1:] + "_expires_at"
		}
	}
	switch l.dialect {
	case sqldb.Postgres:
		return []string{
			"CREATE TABLE IF NOT EXISTS " + l.table + " (\n\tkey        bytea  NOT NULL PRIMARY KEY,\n\texpires_at bigint NOT NULL\n)",
			"CREATE INDEX IF NOT EXISTS " + idx + " ON " + on + " (expires_at)",
		}
	case sqldb.MySQL:
		return []string{"CREATE TABLE IF NOT EXISTS " + l.table + " (\n\t`key`      VARBINARY(512) NOT NULL PRIMARY KEY,\n\texpires_at BIGINT         NOT NULL,\n\tINDEX " + idx + " (expires_at)\n) ENGINE=InnoDB"}
	default:
		return []string{
			"CREATE TABLE IF NOT EXISTS " + l.table + " (\n\tkey        BLOB    NOT NULL PRIMARY KEY,\n\texpires_at INTEGER NOT NULL\n)",
			"CREATE INDEX IF NOT EXISTS " + idx + " ON " + on + " (expires_at)",
		}
	}
}

// CreateTable runs the statements of Schema on db, safely when many processes start at
// once on a new database.
func (l *Ledger) CreateTable(ctx context.Context, db Execer) error {
	if err := sqldb.CreateTables(ctx, db, l.Schema()...); err != nil {
		return fmt.Errorf("ledger: creating table %s: %w", l.table, err)
	}
	return nil
}

// Record records key in the transaction tx and reports whether it is the first record of
// key (within the TTL): true, do the work in tx and commit; false, the work was done
// (commit nothing, acknowledge the message). A concurrent transaction that recorded the
// same key and has not finished makes Record wait for it.
func (l *Ledger) Record(ctx context.Context, tx Execer, key string) (first bool, err error) {
	if err := checkKey(key); err != nil {
		return false, err
	}
	now := l.now()
	exp, nowMs := millis.After(now, l.ttl), millis.After(now, 0)
	if done, err := l.doneUnscoped(ctx, tx, []string{key}, nowMs); err != nil || done[key] {
		return false, err
	}
	if l.dialect == sqldb.MySQL {
		_, err := tx.ExecContext(ctx, l.record.Query, l.record.Args([]byte(key), exp)...)
		if err == nil {
			return true, nil
		}
		if !sqlerr.MySQLDuplicate(err) {
			return false, fmt.Errorf("ledger: recording a key in %s: %w", l.table, err)
		}
		if q, ok := tx.(Queryer); ok {
			live, err := l.live(ctx, q, key, nowMs)
			if err != nil || live {
				return false, err
			}
		}
		res, err := tx.ExecContext(ctx, l.takeover.Query, l.takeover.Args([]byte(key), exp, nowMs)...)
		if err != nil {
			return false, fmt.Errorf("ledger: recording an expired key in %s: %w", l.table, err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return false, fmt.Errorf("ledger: recording an expired key in %s: %w", l.table, err)
		}
		return n > 0, nil
	}
	res, err := tx.ExecContext(ctx, l.record.Query, l.record.Args([]byte(key), exp, nowMs)...)
	if err != nil {
		return false, fmt.Errorf("ledger: recording a key in %s: %w", l.table, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("ledger: recording a key in %s: %w", l.table, err)
	}
	return n > 0, nil
}

// live reports, on MySQL, whether the key a duplicate-key error was met for is within its
// TTL. The read locks the row in share mode, as the duplicate already did: many
// transactions that met one recorded key (redeliveries at once) all hold that shared lock,
// and an UPDATE of the row from any of them would wait for the others' locks, each for
// the others', until InnoDB killed all but one as deadlocked. Reading first, only a key
// past its TTL is updated.
func (l *Ledger) live(ctx context.Context, q Queryer, key string, nowMs int64) (bool, error) {
	rows, err := q.QueryContext(ctx, l.expiry.Query, l.expiry.Args([]byte(key))...)
	if err != nil {
		return false, fmt.Errorf("ledger: reading a key in %s: %w", l.table, err)
	}
	defer rows.Close()
	var exp int64
	if rows.Next() {
		err = rows.Scan(&exp)
	} else {
		err = rows.Err()
	}
	if err != nil {
		return false, fmt.Errorf("ledger: reading a key in %s: %w", l.table, err)
	}
	return exp > nowMs, nil
}

// Purge deletes the keys whose TTL is over and returns how many: one indexed DELETE.
func (l *Ledger) Purge(ctx context.Context, db Execer) (int, error) {
	res, err := db.ExecContext(ctx, l.purge.Query, l.purge.Args(millis.After(l.now(), 0))...)
	if err != nil {
		return 0, fmt.Errorf("ledger: purging %s: %w", l.table, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("ledger: purging %s: %w", l.table, err)
	}
	return int(n), nil
}

// MaxTxAttempts bounds how often OnceTx, OnceIn, OnceTxBatch and Retry run a transaction
// the database aborted for contention (deadlock, serialization failure, busy SQLite).
const MaxTxAttempts = 10

// Transient reports an error that running the same transaction again may not meet: a
// MySQL/MariaDB deadlock (1213) or lock wait timeout (1205), a PostgreSQL serialization
// failure (40001) or deadlock (40P01), SQLite BUSY or LOCKED. It reads the codes through
// the drivers' error types' methods and fields, so it links no driver.
func Transient(err error) bool { return sqlerr.Transient(err) }

// Retry runs fn, the whole of a transaction, and runs it again after a short randomised
// pause while it fails with a Transient error, MaxTxAttempts times at most; it returns
// fn's last error, or the context's when the context ends during a pause. fn must roll
// its transaction back before it returns an error, as sql.DB.BeginTx's callers and
// gorm.DB.Transaction do, since the database rolled back its effects. A caller already
// in a transaction must not use it: a deadlock rolled back that whole transaction.
func Retry(ctx context.Context, fn func() error) error {
	for attempt := 0; ; attempt++ {
		err := fn()
		if err == nil || !Transient(err) || attempt+1 == MaxTxAttempts {
			return err
		}
		if perr := sqldb.Pause(ctx, attempt); perr != nil {
			return err
		}
	}
}

// OnceTx runs fn in a transaction of db together with the record of key in l, and
// commits both, or neither: it reports whether fn ran and committed (true), or the key was
// already recorded (false, nothing run). An error from fn, or a panic, rolls everything
// back, so a redelivery runs it again. A transaction the database aborted for contention
// is run again, fn included (its effects were rolled back), MaxTxAttempts times at most.
func OnceTx(ctx context.Context, db *sql.DB, l *Ledger, key string, fn func(ctx context.Context, tx *sql.Tx) error) (ran bool, err error) {
	begin := func(ctx context.Context) (*sql.Tx, error) { return db.BeginTx(ctx, nil) }
	return OnceIn(ctx, begin, l, key, fn)
}

// Tx is a transaction OnceIn can run work in: *sql.Tx, and ent's generated *ent.Tx with
// the sql/execquery feature.
type Tx interface {
	Execer
	Commit() error
	Rollback() error
}

// OnceIn is OnceTx for transactions of any kind: begin starts one (an ent client's Tx
// method, say), and fn gets it.
func OnceIn[T Tx](ctx context.Context, begin func(context.Context) (T, error), l *Ledger, key string, fn func(ctx context.Context, tx T) error) (ran bool, err error) {
	err = Retry(ctx, func() (err error) {
		ran, err = onceIn(ctx, begin, l, key, fn)
		return err
	})
	return ran && err == nil, err
}

func onceIn[T Tx](ctx context.Context, begin func(context.Context) (T, error), l *Ledger, key string, fn func(ctx context.Context, tx T) error) (ran bool, err error) {
	tx, err := begin(ctx)
	if err != nil {
		return false, fmt.Errorf("ledger: beginning a transaction: %w", err)
	}
	defer func() {
		if !ran {
			tx.Rollback()
		}
	}()
	first, err := l.Record(ctx, tx, key)
	if err != nil || !first {
		return false, err
	}
	if err := fn(ctx, tx); err != nil {
		return false, err
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("ledger: committing the work of %q: %w", key, err)
	}
	return true, nil
}

// Queryer runs a statement and reads its rows: *sql.Tx is one. RecordBatch needs it,
// since it reads back which keys it recorded.
type Queryer interface {
	Execer
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// MaxBatch is the most keys RecordBatch records in one statement; a longer slice is
// recorded in several.
const MaxBatch = 1000

// RecordBatch is Record for several keys in one transaction and, in the usual case, one
// statement: first[i] reports whether keys[i] is the first record of its key, as Record
// would. A key given twice is first at most once, at its first place. The keys are
// recorded in sorted order, so two batches with keys in common lock them in the same
// order and do not deadlock on each other; a concurrent transaction that recorded one of
// the keys and has not finished makes RecordBatch wait for it.
//
// On PostgreSQL and SQLite it is one INSERT ... ON CONFLICT ... RETURNING of the keys
// recorded. On MySQL, which returns no rows from an INSERT, it is a plain INSERT of all
// the keys: when it succeeds they are all first; when a key was there, the statement
// fails as a whole (InnoDB rolls back the statement, not the transaction) and the keys
// are recorded one by one with Record, which also takes over expired keys (a batch with
// a known key costs one statement a key, as Record).
func (l *Ledger) RecordBatch(ctx context.Context, tx Queryer, keys []string) (first []bool, err error) {
	first = make([]bool, len(keys))
	if len(keys) == 0 {
		return first, nil
	}
	at, uniq, err := batchKeys(keys)
	if err != nil {
		return nil, err
	}
	done, err := l.doneUnscoped(ctx, tx, uniq, millis.After(l.now(), 0))
	if err != nil {
		return nil, err
	}
	if len(done) > 0 {
		uniq = slices.DeleteFunc(uniq, func(k string) bool { return done[k] })
	}
	for len(uniq) > 0 {
		n := min(len(uniq), MaxBatch)
		if err := l.recordBatch(ctx, tx, uniq[:n], func(k string) { first[at[k]] = true }); err != nil {
			return nil, err
		}
		uniq = uniq[n:]
	}
	return first, nil
}

// batchKeys checks each key and returns the distinct keys, sorted, and the first place of
// each in keys.
func batchKeys(keys []string) (at map[string]int, uniq []string, err error) {
	at = make(map[string]int, len(keys))
	uniq = make([]string, 0, len(keys))
	for i, k := range keys {
		if err := checkKey(k); err != nil {
			return nil, nil, err
		}
		if _, ok := at[k]; !ok {
			at[k] = i
			uniq = append(uniq, k)
		}
	}
	slices.Sort(uniq)
	return at, uniq, nil
}

// keyRows writes to q the VALUES rows of keys, each expiring at exp, and returns the
// statement's arguments. On PostgreSQL and SQLite they are exp ($1 or ?1), then extra,
// then the keys; on MySQL, whose ? are not numbered, a key and exp for each row (MySQL
// statements take no extra).
func (l *Ledger) keyRows(q *strings.Builder, keys []string, exp int64, extra ...any) []any {
	if l.dialect == sqldb.MySQL {
		args := make([]any, 0, 2*len(keys))
		for i, k := range keys {
			if i > 0 {
				q.WriteString(", ")
			}
			q.WriteString("(?, ?)")
			args = append(args, []byte(k), exp)
		}
		return args
	}
	args := make([]any, 0, 1+len(extra)+len(keys))
	args = append(append(args, exp), extra...)
	for i, k := range keys {
		if i > 0 {
			q.WriteString(", ")
		}
		q.WriteString("(" + l.param(len(args)+1) + ", " + l.param(1) + ")")
		args = append(args, []byte(k))
	}
	return args
}

// param is the nth numbered placeholder on PostgreSQL ($n) and SQLite (?n).
func (l *Ledger) param(n int) string {
	if l.dialect == sqldb.Postgres {
		return "$" + strconv.Itoa(n)
	}
	return "?" + strconv.Itoa(n)
}

// insertAll is a plain INSERT of the distinct keys, all expiring at exp: it inserts every
// key or, when one is in the table (done, or expired and not purged yet), fails as a
// whole with the database's duplicate-key error.
func (l *Ledger) insertAll(ctx context.Context, tx Execer, keys []string, exp int64) error {
	var q strings.Builder
	if l.dialect == sqldb.MySQL {
		q.WriteString("INSERT INTO " + l.table + " (`key`, expires_at) VALUES ")
	} else {
		q.WriteString("INSERT INTO " + l.table + " (key, expires_at) VALUES ")
	}
	args := l.keyRows(&q, keys, exp)
	_, err := tx.ExecContext(ctx, q.String(), args...)
	return err
}

// recordBatch records the distinct sorted keys and calls mark for each first record.
func (l *Ledger) recordBatch(ctx context.Context, tx Queryer, keys []string, mark func(key string)) error {
	now := l.now()
	exp, nowMs := millis.After(now, l.ttl), millis.After(now, 0)
	if l.dialect == sqldb.MySQL {
		err := l.insertAll(ctx, tx, keys, exp)
		if err == nil {
			for _, k := range keys {
				mark(k)
			}
			return nil
		}
		if !sqlerr.MySQLDuplicate(err) {
			return fmt.Errorf("ledger: recording keys in %s: %w", l.table, err)
		}
		// Some key was there: InnoDB rolled the statement back (not the transaction),
		// and which keys were there it does not say, so ask key by key.
		for _, k := range keys {
			ok, err := l.Record(ctx, tx, k)
			if err != nil {
				return err
			}
			if ok {
				mark(k)
			}
		}
		return nil
	}
	// $1 is the expiry, $2 now, then the keys; SQLite's ?N numbers the same way.
	var q strings.Builder
	q.WriteString("INSERT INTO " + l.table + " AS d (key, expires_at) VALUES ")
	args := l.keyRows(&q, keys, exp, nowMs)
	q.WriteString(" ON CONFLICT (key) DO UPDATE SET expires_at = excluded.expires_at WHERE d.expires_at <= " + l.param(2) + " RETURNING key")
	rows, err := tx.QueryContext(ctx, q.String(), args...)
	if err != nil {
		return fmt.Errorf("ledger: recording keys in %s: %w", l.table, err)
	}
	defer rows.Close()
	for rows.Next() {
		var k []byte
		if err := rows.Scan(&k); err != nil {
			return fmt.Errorf("ledger: recording keys in %s: %w", l.table, err)
		}
		mark(string(k))
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("ledger: recording keys in %s: %w", l.table, err)
	}
	return nil
}

// OnceTxBatch is OnceTx for several messages in one transaction of db: it records keys
// with RecordBatch, calls fn(ctx, tx, i) for each keys[i] recorded first, and commits;
// ran[i] reports whether fn ran for keys[i] and committed. An error from fn (or a panic)
// rolls the whole batch back, keys and effects, and is returned with ran nil: the caller
// runs the messages again, one by one with OnceTx, to learn which one fails. A transaction
// the database aborted for contention is run again, fn included, MaxTxAttempts times at
// most.
//
// On PostgreSQL the transaction first tries a plain INSERT of the keys, which costs the
// server less than RecordBatch's statement when every key is new (the usual batch); when
// one was there, PostgreSQL aborts the transaction on the duplicate, and OnceTxBatch rolls
// it back and records the keys with RecordBatch in a new one, before fn has run.
func OnceTxBatch(ctx context.Context, db *sql.DB, l *Ledger, keys []string, fn func(ctx context.Context, tx *sql.Tx, i int) error) (ran []bool, err error) {
	err = Retry(ctx, func() (err error) {
		ran, err = onceTxBatch(ctx, db, l, keys, fn)
		return err
	})
	if err != nil {
		return nil, err
	}
	return ran, nil
}

// errAborted says that recordFresh met a recorded key and the transaction is aborted.
var errAborted = errors.New("ledger: a key was recorded; the transaction is aborted")

// recordFresh is RecordBatch as the first statement of tx, which OnceTxBatch owns. On
// PostgreSQL, for two keys or more (a batch of one, under light load, is as often a
// redelivery as not) that fit one statement, it first tries a plain INSERT of
// all of them: for keys never seen (the usual batch) that costs the database noticeably
// less than INSERT ... ON CONFLICT ... RETURNING (no speculative insertion, no rows
// back); when a key is there the INSERT fails, PostgreSQL aborts tx, and recordFresh
// returns errAborted for the caller to roll back and run RecordBatch in a new
// transaction. Elsewhere, and under Options.ReadUnscoped (which reads before it records),
// it is RecordBatch.
func (l *Ledger) recordFresh(ctx context.Context, tx *sql.Tx, keys []string) ([]bool, error) {
	if l.dialect != sqldb.Postgres || len(keys) < 2 || l.readUnscoped {
		return l.RecordBatch(ctx, tx, keys)
	}
	at, uniq, err := batchKeys(keys)
	if err != nil {
		return nil, err
	}
	if len(uniq) > MaxBatch {
		return l.RecordBatch(ctx, tx, keys)
	}
	if err := l.insertAll(ctx, tx, uniq, millis.After(l.now(), l.ttl)); err != nil {
		if sqlerr.PostgresDuplicate(err) {
			return nil, errAborted
		}
		return nil, fmt.Errorf("ledger: recording keys in %s: %w", l.table, err)
	}
	first := make([]bool, len(keys))
	for _, i := range at {
		first[i] = true
	}
	return first, nil
}

func onceTxBatch(ctx context.Context, db *sql.DB, l *Ledger, keys []string, fn func(ctx context.Context, tx *sql.Tx, i int) error) (ran []bool, err error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("ledger: beginning a transaction: %w", err)
	}
	committed := false
	defer func() {
		if !committed {
			tx.Rollback()
		}
	}()
	first, err := l.recordFresh(ctx, tx, keys)
	if errors.Is(err, errAborted) {
		// A key was there and PostgreSQL aborted the transaction: again, in a new one,
		// with RecordBatch (the deferred Rollback of a rolled-back tx does nothing).
		tx.Rollback()
		var again *sql.Tx
		if again, err = db.BeginTx(ctx, nil); err != nil {
			return nil, fmt.Errorf("ledger: beginning a transaction: %w", err)
		}
		tx = again
		first, err = l.RecordBatch(ctx, tx, keys)
	}
	if err != nil {
		return nil, err
	}
	for i, ok := range first {
		if ok {
			if err := fn(ctx, tx, i); err != nil {
				return nil, err
			}
		}
	}
	if err := tx.Commit(); err != nil {
		committed = true // nothing to roll back: the transaction is over either way
		return nil, fmt.Errorf("ledger: committing the work of %d keys: %w", len(keys), err)
	}
	committed = true
	return first, nil
}
