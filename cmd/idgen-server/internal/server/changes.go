package server

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

	"github.com/idgen/idgen/cmd/idgen-server/internal/config"
	"github.com/idgen/idgen/plugins/redis/redissegment"
	"github.com/idgen/idgen/runtime/segment"
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
// step change (see [Server.SetStep]).
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
	// id orders the changes of one store; it is unique in that store.
	id string
}

// ChangeLen bounds the changes Server.Changes returns: the Tags page lists the latest.
const ChangeLen = 50

// maxNameLen is the longest tag or token name a change log keeps (the segment table's
// tag column holds 128).
const maxNameLen = 128

// changeLog is where one store keeps the console's changes of the tags it holds.
type changeLog interface {
	// add keeps c and returns its id.
	add(ctx context.Context, c Change) (string, error)
	// recent returns the latest n changes, newest first.
	recent(ctx context.Context, n int) ([]Change, error)
	// steps returns the latest step change of every tag that has one.
	steps(ctx context.Context) ([]Change, error)
}

// newChangeLog returns the change log of st: a table beside the segment table on SQL
// (SegmentTable, or segment.DefaultTable, with "_changes" added), a stream and a hash
// beside the counters on Redis. Other stores keep no change log (nil).
func newChangeLog(st *store) (changeLog, error) {
	switch {
	case st.db != nil:
		table := cmp.Or(st.cfg.SegmentTable, segment.DefaultTable) + "_changes"
		if err := sqldb.CheckTable(table); err != nil {
			return nil, fmt.Errorf("server: store %q: change table: %w", st.name, err)
		}
		return &sqlChanges{db: st.db, table: table, q: changeQueries(st.dialect(), table)}, nil
	case st.rdb != nil:
		// The keys start with the counters' prefix, followed by a byte no tag name starts
		// with, so no tag is ever read from them (and redissegment.Tags skips them: they
		// hold no integer).
		p := cmp.Or(st.cfg.Prefix, redissegment.DefaultPrefix)
		return &redisChanges{c: st.rdb, stream: p + "~changes", stepKey: p + "~steps"}, nil
	}
	return nil, nil
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

// sqlChanges is a change log in a table of its own, one row a change, never deleted:
// changes are rare, and the table is the audit trail.
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
		return fmt.Errorf("server: creating table %s: %w", s.table, err)
	}
	s.created = true
	return nil
}

func (s *sqlChanges) add(ctx context.Context, c Change) (string, error) {
	if err := s.ensure(ctx); err != nil {
		return "", err
	}
	id, err := s.q.insert(ctx, s.db, c.Tag, string(c.Kind), c.Old, c.New, c.First, c.Who, c.At.UnixMilli())
	if err != nil {
		return "", fmt.Errorf("server: keeping a change in %s: %w", s.table, err)
	}
	return strconv.FormatInt(id, 10), nil
}

func (s *sqlChanges) recent(ctx context.Context, n int) ([]Change, error) {
	return s.query(ctx, s.q.recent, n)
}

func (s *sqlChanges) steps(ctx context.Context) ([]Change, error) {
	return s.query(ctx, s.q.steps)
}

func (s *sqlChanges) query(ctx context.Context, q string, args ...any) ([]Change, error) {
	if err := s.ensure(ctx); err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("server: reading %s: %w", s.table, err)
	}
	defer rows.Close()
	var out []Change
	for rows.Next() {
		var c Change
		var id, at int64
		var kind string
		if err := rows.Scan(&id, &c.Tag, &kind, &c.Old, &c.New, &c.First, &c.Who, &at); err != nil {
			return nil, fmt.Errorf("server: reading %s: %w", s.table, err)
		}
		c.id, c.Kind, c.At = strconv.FormatInt(id, 10), ChangeKind(kind), time.UnixMilli(at)
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("server: reading %s: %w", s.table, err)
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

func (r *redisChanges) add(ctx context.Context, c Change) (string, error) {
	hv := strconv.FormatInt(c.Old, 10) + " " + strconv.FormatInt(c.New, 10) + " " + strconv.FormatInt(c.At.UnixMilli(), 10) + " " + c.Who
	args := []any{redisChangesKept, string(c.Kind), c.Tag, hv,
		"tag", c.Tag, "kind", string(c.Kind), "old", c.Old, "new", c.New, "first", c.First, "who", c.Who, "at", c.At.UnixMilli()}
	id, err := addChange.Run(ctx, r.c, []string{r.stream, r.stepKey}, args...).Text()
	if err != nil {
		return "", fmt.Errorf("server: keeping a change in %s: %w", r.stream, err)
	}
	return id, nil
}

func (r *redisChanges) recent(ctx context.Context, n int) ([]Change, error) {
	msgs, err := r.c.XRevRangeN(ctx, r.stream, "+", "-", int64(n)).Result()
	if err != nil {
		return nil, fmt.Errorf("server: reading %s: %w", r.stream, err)
	}
	out := make([]Change, 0, len(msgs))
	for _, m := range msgs {
		str := func(k string) string { s, _ := m.Values[k].(string); return s }
		num := func(k string) int64 { n, _ := strconv.ParseInt(str(k), 10, 64); return n }
		out = append(out, Change{id: m.ID, Tag: str("tag"), Kind: ChangeKind(str("kind")), Old: num("old"), New: num("new"),
			First: num("first"), Who: str("who"), At: time.UnixMilli(num("at"))})
	}
	return out, nil
}

func (r *redisChanges) steps(ctx context.Context) ([]Change, error) {
	m, err := r.c.HGetAll(ctx, r.stepKey).Result()
	if err != nil {
		return nil, fmt.Errorf("server: reading %s: %w", r.stepKey, err)
	}
	out := make([]Change, 0, len(m))
	for tag, v := range m {
		f := strings.SplitN(v, " ", 5)
		if len(f) != 5 {
			continue
		}
		c := Change{id: f[0], Tag: tag, Kind: ChangeStep, Who: f[4]}
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

// stepState is what a Server has applied of the step changes in its stores.
type stepState struct {
	mu      sync.Mutex        // serialises SetStep and applySteps
	applied map[string]string // tag -> id of the step change applied last
}

// logFor returns the change log of the store named store, nil if it keeps none.
func (s *Server) logFor(store string) changeLog { return s.changeLogs[store] }

// openChangeLogs makes the change log of every store that holds segment tags, or is the
// tag store.
func (s *Server) openChangeLogs() error {
	s.changeLogs = map[string]changeLog{}
	names := map[string]bool{}
	if s.cfg.TagStore != "" {
		names[s.cfg.TagStore] = true
	}
	for _, tc := range s.cfg.Tags {
		if tc.Kind == config.KindSegment {
			names[tc.Store] = true
		}
	}
	for name := range names {
		st, ok := s.stores[name]
		if !ok {
			continue
		}
		l, err := newChangeLog(st)
		if err != nil {
			return err
		}
		if l != nil {
			s.changeLogs[name] = l
		}
	}
	return nil
}

// record keeps c in the change log of its store, if it has one, and returns its id.
func (s *Server) record(ctx context.Context, c Change) (string, error) {
	l := s.logFor(c.Store)
	if l == nil {
		return "", nil
	}
	c.Tag, c.Who = truncate(c.Tag), truncate(c.Who)
	return l.add(ctx, c)
}

func truncate(s string) string {
	if len(s) > maxNameLen {
		return s[:maxNameLen]
	}
	return s
}

// Changes returns the latest ChangeLen changes made through the console of any instance,
// newest first, read from the change logs of this server's stores. A store that cannot
// be read is named in the error, and the changes of the others are returned.
func (s *Server) Changes(ctx context.Context) ([]Change, error) {
	var out []Change
	var errs []error
	for name, l := range s.changeLogs {
		cs, err := l.recent(ctx, ChangeLen)
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

// applySteps applies, with Allocator.SetStep, the latest step change of each segment tag
// served from a store with a change log, unless it applied that change already: a
// change is applied once, and the step then adapts to the traffic as before.
func (s *Server) applySteps(ctx context.Context) error {
	var errs []error
	for name, l := range s.changeLogs {
		cs, err := l.steps(ctx)
		if err != nil {
			errs = append(errs, fmt.Errorf("server: store %q: %w", name, err))
			continue
		}
		s.steps.mu.Lock()
		for _, c := range cs {
			t, ok := s.tagNamed(c.Tag)
			if !ok || t.Alloc() == nil || t.Store() != name || s.steps.applied[c.Tag] == c.id || c.New <= 0 {
				continue
			}
			if err := t.Alloc().SetStep(c.New); err != nil {
				errs = append(errs, err)
				continue
			}
			s.steps.applied[c.Tag] = c.id
			s.log.Info("step chosen in the console applied", "tag", c.Tag, "step", c.New, "who", c.Who, "at", c.At, "store", name)
		}
		s.steps.mu.Unlock()
	}
	return errors.Join(errs...)
}
