package segment

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"

	"github.com/idgen/idgen/runtime/internal/sqlerr"
	"github.com/idgen/idgen/runtime/internal/sqlstore"
	"github.com/idgen/idgen/runtime/sqldb"
)

// The tables of the services users switch from, by their published schemas.
const (
	// LeafTable is Meituan Leaf's segment table: leaf_alloc (biz_tag, max_id, step,
	// description, update_time).
	LeafTable = "leaf_alloc"
	// TinyidTable is didi tinyid's table: tiny_id_info (id, biz_type, begin_id, max_id,
	// step, delta, remainder, create_time, update_time, version).
	TinyidTable = "tiny_id_info"
)

// ErrMissingColumn is matched by every *ColumnError.
var ErrMissingColumn = errors.New("segment: table lacks a column")

// ColumnError reports a peer's table without a column the store reads or writes: not
// the table of the service named, or a version of it this store does not know. It
// matches ErrMissingColumn.
type ColumnError struct {
	// Table and Column name what is missing; Peer is "leaf" or "tinyid".
	Table, Column, Peer string
	// Err is the database's error for a query of the column.
	Err error
}

// Error implements error.
func (e *ColumnError) Error() string {
	return fmt.Sprintf("segment: table %s has no column %q, which %s's schema has: point the store at %s's own table (or add the column): %v",
		e.Table, e.Column, e.Peer, e.Peer, e.Err)
}

// Is reports whether target is ErrMissingColumn.
func (e *ColumnError) Is(target error) bool { return target == ErrMissingColumn }

// Unwrap returns e.Err.
func (e *ColumnError) Unwrap() error { return e.Err }

// NoRowError reports a tag the peer's table has no row for: Leaf and tinyid hand out only
// tags an operator inserted, and so do these stores, so that both services count from the
// same row.
type NoRowError struct {
	Table, Tag string
}

// Error implements error.
func (e *NoRowError) Error() string {
	return fmt.Sprintf("segment: table %s has no row for tag %q: insert it as the old service needs it (the stores on a peer's table do not create tags)", e.Table, e.Tag)
}

// peerTable holds what the Leaf and Tinyid stores share: the database, the table and the
// check of its columns, run once.
type peerTable struct {
	db      *sql.DB
	dialect sqldb.Dialect
	table   string
	peer    string
	columns []string

	mu      sync.Mutex
	checked bool // every column was found
}

// check queries every column the store uses, once, so that a table of another shape is
// refused with the column it lacks rather than an error of the first statement.
func (p *peerTable) check(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.checked {
		return nil
	}
	for _, c := range p.columns {
		rows, err := p.db.QueryContext(ctx, "SELECT "+c+" FROM "+p.table+" WHERE 1 = 0")
		if err != nil {
			if sqlerr.Transient(err) || ctx.Err() != nil {
				return fmt.Errorf("segment: checking table %s: %w", p.table, err)
			}
			return &ColumnError{Table: p.table, Column: c, Peer: p.peer, Err: err}
		}
		rows.Close()
	}
	p.checked = true
	return nil
}

// PeerOptions configures a [Leaf] or [Tinyid] store: the zero value uses the peer's
// table name.
type PeerOptions struct {
	// Table is the peer's table, LeafTable or TinyidTable if empty; it may be qualified
	// by a schema and follows the rule of [TableError].
	Table string
}

// Leaf is a Store on Meituan Leaf's segment table, leaf_alloc, so that idgen and Leaf
// take blocks from the same rows while both run: a block is one UPDATE that adds the step
// to max_id (Leaf's own statement, with the step of the reservation), and its IDs are
// the step below the new max_id, from new max_id - step to new max_id - 1, as Leaf hands
// them out. Leaf's max_id is thus the next ID, where idgen's own table keeps the last
// one. Rows are not created: Leaf's operators insert each biz_tag (with max_id 1 and a
// step), and a tag without one is a *NoRowError. PostgreSQL and MySQL (the schemas Leaf
// publishes are MySQL's; a PostgreSQL table of the same columns serves); not SQLite.
type Leaf struct {
	peerTable
	reserve string
}

// NewLeaf returns a Store on Leaf's table in db. It checks the table's columns before its
// first reservation; a missing one is a *ColumnError.
func NewLeaf(db *sql.DB, dialect sqldb.Dialect, opts PeerOptions) (*Leaf, error) {
	table, err := peerResolve("leaf", dialect, opts.Table, LeafTable)
	if err != nil {
		return nil, err
	}
	s := &Leaf{peerTable: peerTable{db: db, dialect: dialect, table: table, peer: "leaf",
		columns: []string{"biz_tag", "max_id", "step", "description", "update_time"}}}
	if dialect == sqldb.MySQL {
		s.reserve = "UPDATE " + table + " SET max_id = LAST_INSERT_ID(max_id + ?), update_time = CURRENT_TIMESTAMP WHERE biz_tag = ?"
	} else {
		s.reserve = "UPDATE " + table + " SET max_id = max_id + $1, update_time = CURRENT_TIMESTAMP WHERE biz_tag = $2 RETURNING max_id"
	}
	return s, nil
}

// CounterIsNext implements NextCounter: Leaf's max_id is the next ID it hands out, so a
// *FloorError asks for max_id at least floor+1.
func (s *Leaf) CounterIsNext() bool { return true }

// peerResolve checks a peer's table name and dialect.
func peerResolve(peer string, d sqldb.Dialect, table, def string) (string, error) {
	if d == sqldb.SQLite {
		return "", fmt.Errorf("segment: %s's table on SQLite: want postgres or mysql, where %s runs", peer, peer)
	}
	return sqlstore.ResolveTable("segment", d, table, def)
}

// Table returns the name of the table.
func (s *Leaf) Table() string { return s.table }

// Reserve implements Store: one UPDATE of the tag's row.
func (s *Leaf) Reserve(ctx context.Context, tag string, step int64) (Range, error) {
	if err := checkArgs(tag, step); err != nil {
		return Range{}, err
	}
	if err := s.check(ctx); err != nil {
		return Range{}, err
	}
	var next int64
	err := retry(ctx, func() error {
		if s.dialect == sqldb.MySQL {
			res, err := s.db.ExecContext(ctx, s.reserve, step, tag)
			if err != nil {
				return err
			}
			if n, err := res.RowsAffected(); err != nil || n == 0 {
				return cmpErr(err, errNoRow)
			}
			next, err = res.LastInsertId()
			return err
		}
		err := s.db.QueryRowContext(ctx, s.reserve, step, tag).Scan(&next)
		if errors.Is(err, sql.ErrNoRows) {
			return errNoRow
		}
		return err
	})
	if errors.Is(err, errNoRow) {
		return Range{}, &NoRowError{Table: s.table, Tag: tag}
	}
	if err != nil {
		return Range{}, fmt.Errorf("segment: reserving %d IDs of tag %q in %s: %w", step, tag, s.table, err)
	}
	return Range{First: next - step, Last: next - 1}, nil
}

// cmpErr returns err, or alt when err is nil.
func cmpErr(err, alt error) error {
	if err != nil {
		return err
	}
	return alt
}

// retry runs fn until it returns an error other than a transient one, at most
// maxAttempts times.
func retry(ctx context.Context, fn func() error) error {
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

// tinyidAttempts bounds the version-checked updates a Tinyid reservation makes while other
// processes keep winning the row.
const tinyidAttempts = 100

// Tinyid is a Store on didi tinyid's table, tiny_id_info, so that idgen and tinyid take
// blocks from the same rows while both run. A block is taken as tinyid takes it: the row
// is read (id, max_id, version, delta, remainder), then one UPDATE sets max_id to max_id +
// step and version to version + 1 where id, max_id, version and biz_type are still those
// read; a process that lost the race reads again, at most tinyidAttempts times. The
// block's IDs are those in (old max_id, new max_id] whose remainder modulo delta is the
// row's remainder, every delta-th: tinyid's interleaving of several databases (each with
// its own remainder) is kept, and the Range has Stride delta. Rows are not created (a tag
// without one is a *NoRowError). PostgreSQL and MySQL.
type Tinyid struct {
	peerTable
	read, update string
}

// NewTinyid returns a Store on tinyid's table in db. It checks the table's columns
// before its first reservation; a missing one is a *ColumnError.
func NewTinyid(db *sql.DB, dialect sqldb.Dialect, opts PeerOptions) (*Tinyid, error) {
	table, err := peerResolve("tinyid", dialect, opts.Table, TinyidTable)
	if err != nil {
		return nil, err
	}
	s := &Tinyid{peerTable: peerTable{db: db, dialect: dialect, table: table, peer: "tinyid",
		columns: []string{"id", "biz_type", "begin_id", "max_id", "step", "delta", "remainder", "create_time", "update_time", "version"}}}
	s.read = "SELECT id, max_id, version, delta, remainder FROM " + table + " WHERE biz_type = $1"
	s.update = "UPDATE " + table + " SET max_id = $1, update_time = CURRENT_TIMESTAMP, version = version + 1 WHERE id = $2 AND max_id = $3 AND version = $4 AND biz_type = $5"
	if dialect == sqldb.MySQL {
		s.read = "SELECT id, max_id, version, delta, remainder FROM " + table + " WHERE biz_type = ?"
		s.update = "UPDATE " + table + " SET max_id = ?, update_time = CURRENT_TIMESTAMP, version = version + 1 WHERE id = ? AND max_id = ? AND version = ? AND biz_type = ?"
	}
	return s, nil
}

// Table returns the name of the table.
func (s *Tinyid) Table() string { return s.table }

// Reserve implements Store: a read and a version-checked UPDATE, repeated while another
// process wins the row. step is the width of the span of max_id taken; with a delta
// above 1 the block has about step/delta IDs.
func (s *Tinyid) Reserve(ctx context.Context, tag string, step int64) (Range, error) {
	if err := checkArgs(tag, step); err != nil {
		return Range{}, err
	}
	if err := s.check(ctx); err != nil {
		return Range{}, err
	}
	for attempt := 1; attempt <= tinyidAttempts; attempt++ {
		var id, maxID, version, delta, rem int64
		err := retry(ctx, func() error {
			return s.db.QueryRowContext(ctx, s.read, tag).Scan(&id, &maxID, &version, &delta, &rem)
		})
		if errors.Is(err, sql.ErrNoRows) {
			return Range{}, &NoRowError{Table: s.table, Tag: tag}
		}
		if err != nil {
			return Range{}, fmt.Errorf("segment: reading tag %q in %s: %w", tag, s.table, err)
		}
		if delta < 1 || rem < 0 || rem >= delta {
			return Range{}, fmt.Errorf("segment: tag %q in %s: delta %d and remainder %d: want delta >= 1 and 0 <= remainder < delta", tag, s.table, delta, rem)
		}
		if step < delta {
			return Range{}, fmt.Errorf("segment: tag %q in %s: step %d is below delta %d, so a block could hold no ID: use a larger step", tag, s.table, step, delta)
		}
		var n int64
		err = retry(ctx, func() error {
			res, err := s.db.ExecContext(ctx, s.update, maxID+step, id, maxID, version, tag)
			if err != nil {
				return err
			}
			n, err = res.RowsAffected()
			return err
		})
		if err != nil {
			return Range{}, fmt.Errorf("segment: reserving %d of tag %q in %s: %w", step, tag, s.table, err)
		}
		if n == 1 {
			return tinyidBlock(maxID, maxID+step, delta, rem), nil
		}
		if err := sqldb.Pause(ctx, min(attempt, 5)); err != nil {
			return Range{}, err
		}
	}
	return Range{}, fmt.Errorf("segment: reserving tag %q in %s: lost %d version checks to other processes", tag, s.table, tinyidAttempts)
}

// tinyidBlock returns the IDs in (old, new] congruent to rem modulo delta.
func tinyidBlock(old, new, delta, rem int64) Range {
	first := old + 1 + mod(rem-(old+1), delta)
	last := new - mod(new-rem, delta)
	return Range{First: first, Last: last, Stride: delta}
}

// mod is the non-negative remainder of a modulo m.
func mod(a, m int64) int64 { return ((a % m) + m) % m }
