package control

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idgen/idgen/plugins/redis/redissegment"
	"github.com/idgen/idgen/runtime/sqldb"
)

// ChangeKind says what a Change did.
type ChangeKind string

// The kinds of Change.
const (
	// ChangeCreate: a segment tag was created in the tag store.
	ChangeCreate ChangeKind = "create"
	// ChangeStep: an admin chose a segment tag's step.
	ChangeStep ChangeKind = "step"
)

// Change is one change of a tag made through the console. It is kept in the store the
// tag's segments live in, so that every instance on that store lists it and applies a
// step change (the server's SetStep).
type Change struct {
	At    time.Time
	Who   string // the token's name
	Tag   string
	Kind  ChangeKind
	Store string // the store's name in the configuration of the instance that read it
	// Old and New are the step before (on the instance that made the change; 0 for a
	// create) and after.
	Old, New int64
	// First is a created tag's first ID.
	First int64
	// ID orders the changes of one store; it is unique in that store. Set by the
	// change log (ChangeLog.Add returns it), empty in a Change not kept yet.
	ID string
}

// ChangeLen bounds the changes Logs.Recent returns: the Tags page lists the latest.
const ChangeLen = 50

// maxNameLen is the longest tag or token name a change log keeps (the segment table's
// tag column holds 128).
const maxNameLen = 128

// ChangeLog is where one store keeps the console's changes of the tags it holds. Safe
// for concurrent use.
type ChangeLog interface {
	// Add keeps c and returns its ID.
	Add(ctx context.Context, c Change) (string, error)
	// Recent returns the latest n changes, newest first.
	Recent(ctx context.Context, n int) ([]Change, error)
	// Steps returns the latest step change of every tag that has one.
	Steps(ctx context.Context) ([]Change, error)
}

// SQLChangeLog returns the change log in table of db, a database of dialect d: a table
// of its own, created at its first use (by any number of instances at once), one row a
// change, never deleted: changes are rare, and the table is the audit trail. A table name
// that is not a plain SQL identifier is refused.
func SQLChangeLog(db *sql.DB, d sqldb.Dialect, table string) (ChangeLog, error) {
	if err := sqldb.CheckTable(table); err != nil {
		return nil, fmt.Errorf("control: change table: %w", err)
	}
	return &sqlChanges{db: db, table: table, q: changeQueries(d, table)}, nil
}

// RedisChangeLog returns the change log beside the segment counters under prefix on c
// (redissegment.DefaultPrefix when ""): a stream of the changes and a hash of each tag's
// latest step change. Their keys start with the prefix followed by a byte no tag name
// starts with, so no tag is ever read from them (and redissegment.Tags skips them: they
// hold no integer).
func RedisChangeLog(c redis.UniversalClient, prefix string) ChangeLog {
	p := cmp.Or(prefix, redissegment.DefaultPrefix)
	return &redisChanges{c: c, stream: p + "~changes", stepKey: p + "~steps"}
}

// changeSQL is the SQL of a change table in one dialect.
type changeSQL struct {
	schema string
	// insert keeps a change, taking (tag, kind, old_step, new_step, first_id, who, at_ms),
	// and returns its id.
	insert func(ctx context.Context, db *sql.DB, args ...any) (int64, error)
	recent string // takes (limit)
	steps  string
}

// changeColumns are the columns every query reads, in Change's order.
const changeColumns = "id, tag, kind, old_step, new_step, first_id, who, at_ms"

func changeQueries(d sqldb.Dialect, table string) changeSQL {
	recent := "SELECT " + changeColumns + " FROM " + table + " ORDER BY id DESC LIMIT "
	// The latest step change of each tag: the one with the highest id, so that two
	// admins changing one tag at once leave every instance on the same step.
	steps := "SELECT " + changeColumns + " FROM " + table + " c WHERE kind = 'step' AND id = (SELECT MAX(id) FROM " + table + " d WHERE d.tag = c.tag AND d.kind = 'step')"
	returning := func(q string) func(context.Context, *sql.DB, ...any) (int64, error) {
		return func(ctx context.Context, db *sql.DB, args ...any) (id int64, err error) {
			err = db.QueryRowContext(ctx, q, args...).Scan(&id)
			return id, err
		}
	}
	cols := " (tag, kind, old_step, new_step, first_id, who, at_ms) VALUES "
	switch d {
	case sqldb.Postgres:
		return changeSQL{
			schema: "CREATE TABLE IF NOT EXISTS " + table + ` (
	id       bigserial    PRIMARY KEY,
	tag      varchar(128) NOT NULL,
	kind     varchar(16)  NOT NULL,
	old_step bigint       NOT NULL,
	new_step bigint       NOT NULL,
	first_id bigint       NOT NULL,
	who      varchar(128) NOT NULL,
	at_ms    bigint       NOT NULL
)`,
			insert: returning("INSERT INTO " + table + cols + "($1, $2, $3, $4, $5, $6, $7) RETURNING id"),
			recent: recent + "$1", steps: steps,
		}
	case sqldb.MySQL:
		q := "INSERT INTO " + table + cols + "(?, ?, ?, ?, ?, ?, ?)"
		return changeSQL{
			schema: "CREATE TABLE IF NOT EXISTS " + table + ` (
	id       BIGINT       NOT NULL AUTO_INCREMENT PRIMARY KEY,
	tag      VARCHAR(128) NOT NULL,
	kind     VARCHAR(16)  NOT NULL,
	old_step BIGINT       NOT NULL,
	new_step BIGINT       NOT NULL,
	first_id BIGINT       NOT NULL,
	who      VARCHAR(128) NOT NULL,
	at_ms    BIGINT       NOT NULL
) ENGINE=InnoDB`,
			insert: func(ctx context.Context, db *sql.DB, args ...any) (int64, error) {
				r, err := db.ExecContext(ctx, q, args...)
				if err != nil {
					return 0, err
				}
				return r.LastInsertId()
			},
			recent: recent + "?", steps: steps,
		}
	}
	return changeSQL{
		schema: "CREATE TABLE IF NOT EXISTS " + table + ` (
	id       INTEGER PRIMARY KEY AUTOINCREMENT,
	tag      TEXT    NOT NULL,
	kind     TEXT    NOT NULL,
	old_step INTEGER NOT NULL,
	new_step INTEGER NOT NULL,
	first_id INTEGER NOT NULL,
	who      TEXT    NOT NULL,
	at_ms    INTEGER NOT NULL
)`,
		insert: returning("INSERT INTO " + table + cols + "(?1, ?2, ?3, ?4, ?5, ?6, ?7) RETURNING id"),
		recent: recent + "?1", steps: steps,
	}
}

// sqlChanges is the change log of SQLChangeLog.
type sqlChanges struct {
	db    *sql.DB
	table string
	q     changeSQL

	mu      sync.Mutex
	created bool // the table exists: CREATE is not run again
}

// ensure creates the table once (many instances may at once on a new database); a
// failure is tried again at the next call.
func (s *sqlChanges) ensure(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.created {
		return nil
	}
	if err := sqldb.CreateTables(ctx, s.db, s.q.schema); err != nil {
		return fmt.Errorf("control: creating table %s: %w", s.table, err)
	}
	s.created = true
	return nil
}

func (s *sqlChanges) Add(ctx context.Context, c Change) (string, error) {
	if err := s.ensure(ctx); err != nil {
		return "", err
	}
	id, err := s.q.insert(ctx, s.db, c.Tag, string(c.Kind), c.Old, c.New, c.First, c.Who, c.At.UnixMilli())
	if err != nil {
		return "", fmt.Errorf("control: keeping a change in %s: %w", s.table, err)
	}
	return strconv.FormatInt(id, 10), nil
}

func (s *sqlChanges) Recent(ctx context.Context, n int) ([]Change, error) {
	return s.query(ctx, s.q.recent, n)
}

func (s *sqlChanges) Steps(ctx context.Context) ([]Change, error) {
	return s.query(ctx, s.q.steps)
}

func (s *sqlChanges) query(ctx context.Context, q string, args ...any) ([]Change, error) {
	if err := s.ensure(ctx); err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("control: reading %s: %w", s.table, err)
	}
	defer rows.Close()
	var out []Change
	for rows.Next() {
		var c Change
		var id, at int64
		var kind string
		if err := rows.Scan(&id, &c.Tag, &kind, &c.Old, &c.New, &c.First, &c.Who, &at); err != nil {
			return nil, fmt.Errorf("control: reading %s: %w", s.table, err)
		}
		c.ID, c.Kind, c.At = strconv.FormatInt(id, 10), ChangeKind(kind), time.UnixMilli(at)
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("control: reading %s: %w", s.table, err)
	}
	return out, nil
}

// redisChanges is a change log on Redis: a stream of the changes (XADD, its entry IDs
// ordered by time), trimmed to about redisChangesKept entries, and a hash of each tag's
// latest step change, which no trimming drops. Both are written by one script, so a
// change is in both or in neither, and the hash always holds the step change latest in
// the stream, as on SQL (the highest id wins). The two keys must be on one server: on a
// Redis Cluster, a prefix with a hash tag ({...}).
type redisChanges struct {
	c               redis.UniversalClient
	stream, stepKey string
}

// redisChangesKept is about how many changes the Redis stream keeps.
const redisChangesKept = 1000

// addChange keeps a change: KEYS[1] the stream, KEYS[2] the hash of steps; ARGV[1] the
// stream's length to keep, ARGV[2] the kind, ARGV[3] the tag, ARGV[4] the hash's value
// after the entry's ID, ARGV[5...] the entry's fields and values. A script runs alone,
// so the entry just added is the stream's latest, and the hash takes it. A script
// stopped by an error keeps what it wrote before, so the hash's type is checked (HLEN
// fails on another type) before the XADD.
var addChange = redis.NewScript(`
local step = ARGV[2] == 'step'
if step then redis.call('HLEN', KEYS[2]) end
local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', unpack(ARGV, 5))
if step then redis.call('HSET', KEYS[2], ARGV[3], id .. ' ' .. ARGV[4]) end
return id
`)

func (r *redisChanges) Add(ctx context.Context, c Change) (string, error) {
	hv := strconv.FormatInt(c.Old, 10) + " " + strconv.FormatInt(c.New, 10) + " " + strconv.FormatInt(c.At.UnixMilli(), 10) + " " + c.Who
	args := []any{redisChangesKept, string(c.Kind), c.Tag, hv,
		"tag", c.Tag, "kind", string(c.Kind), "old", c.Old, "new", c.New, "first", c.First, "who", c.Who, "at", c.At.UnixMilli()}
	id, err := addChange.Run(ctx, r.c, []string{r.stream, r.stepKey}, args...).Text()
	if err != nil {
		return "", fmt.Errorf("control: keeping a change in %s: %w", r.stream, err)
	}
	return id, nil
}

func (r *redisChanges) Recent(ctx context.Context, n int) ([]Change, error) {
	msgs, err := r.c.XRevRangeN(ctx, r.stream, "+", "-", int64(n)).Result()
	if err != nil {
		return nil, fmt.Errorf("control: reading %s: %w", r.stream, err)
	}
	out := make([]Change, 0, len(msgs))
	for _, m := range msgs {
		str := func(k string) string { s, _ := m.Values[k].(string); return s }
		num := func(k string) int64 { n, _ := strconv.ParseInt(str(k), 10, 64); return n }
		out = append(out, Change{ID: m.ID, Tag: str("tag"), Kind: ChangeKind(str("kind")), Old: num("old"), New: num("new"),
			First: num("first"), Who: str("who"), At: time.UnixMilli(num("at"))})
	}
	return out, nil
}

func (r *redisChanges) Steps(ctx context.Context) ([]Change, error) {
	m, err := r.c.HGetAll(ctx, r.stepKey).Result()
	if err != nil {
		return nil, fmt.Errorf("control: reading %s: %w", r.stepKey, err)
	}
	out := make([]Change, 0, len(m))
	for tag, v := range m {
		f := strings.SplitN(v, " ", 5)
		if len(f) != 5 {
			continue
		}
		c := Change{ID: f[0], Tag: tag, Kind: ChangeStep, Who: f[4]}
		var at int64
		var e1, e2, e3 error
		c.Old, e1 = strconv.ParseInt(f[1], 10, 64)
		c.New, e2 = strconv.ParseInt(f[2], 10, 64)
		at, e3 = strconv.ParseInt(f[3], 10, 64)
		if e1 != nil || e2 != nil || e3 != nil {
			continue
		}
		c.At = time.UnixMilli(at)
		out = append(out, c)
	}
	return out, nil
}

// Logs are the change logs of a server's stores, by the stores' names.
type Logs map[string]ChangeLog

// Record keeps c in the change log of its store (c.Store), if that store keeps one, and
// returns its ID ("" when it does not). Names longer than a log keeps are cut.
func (l Logs) Record(ctx context.Context, c Change) (string, error) {
	log := l[c.Store]
	if log == nil {
		return "", nil
	}
	c.Tag, c.Who = truncate(c.Tag), truncate(c.Who)
	return log.Add(ctx, c)
}

func truncate(s string) string {
	if len(s) > maxNameLen {
		return s[:maxNameLen]
	}
	return s
}

// Recent returns the latest ChangeLen changes of every log, newest first, each with
// Store set to its log's name. A log that cannot be read is named in the error, and the
// changes of the others are returned.
func (l Logs) Recent(ctx context.Context) ([]Change, error) {
	var out []Change
	var errs []error
	for name, log := range l {
		cs, err := log.Recent(ctx, ChangeLen)
		if err != nil {
			errs = append(errs, fmt.Errorf("store %q: %w", name, err))
			continue
		}
		for i := range cs {
			cs[i].Store = name
		}
		out = append(out, cs...)
	}
	slices.SortStableFunc(out, func(a, b Change) int { return b.At.Compare(a.At) })
	if len(out) > ChangeLen {
		out = out[:ChangeLen]
	}
	return out, errors.Join(errs...)
}
