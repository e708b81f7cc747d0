package segmenttest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/idgen/idgen/runtime/sqldb"
)

// The peers' tables, by their published schemas (Leaf's README and tinyid's db.sql are
// MySQL; the PostgreSQL tables have the same columns).
var (
	leafDDL = map[sqldb.Dialect]string{
		sqldb.MySQL: `CREATE TABLE %s (
  biz_tag varchar(128) NOT NULL DEFAULT '',
  max_id bigint(20) NOT NULL DEFAULT '1',
  step int(11) NOT NULL,
  description varchar(256) DEFAULT NULL,
  update_time timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP,
  PRIMARY KEY (biz_tag)
) ENGINE=InnoDB`,
		sqldb.Postgres: `CREATE TABLE %s (
  biz_tag varchar(128) NOT NULL DEFAULT '' PRIMARY KEY,
  max_id bigint NOT NULL DEFAULT 1,
  step integer NOT NULL,
  description varchar(256) DEFAULT NULL,
  update_time timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP
)`,
	}
	tinyidDDL = map[sqldb.Dialect]string{
		sqldb.MySQL: `CREATE TABLE %s (
  id bigint(20) unsigned NOT NULL AUTO_INCREMENT,
  biz_type varchar(63) NOT NULL DEFAULT '',
  begin_id bigint(20) NOT NULL DEFAULT '0',
  max_id bigint(20) NOT NULL DEFAULT '0',
  step int(11) DEFAULT '0',
  delta int(11) NOT NULL DEFAULT '1',
  remainder int(11) NOT NULL DEFAULT '0',
  create_time timestamp NOT NULL DEFAULT '2010-01-01 00:00:00',
  update_time timestamp NOT NULL DEFAULT '2010-01-01 00:00:00',
  version bigint(20) NOT NULL DEFAULT '0',
  PRIMARY KEY (id),
  UNIQUE KEY uniq_biz_type (biz_type)
) ENGINE=InnoDB`,
		sqldb.Postgres: `CREATE TABLE %s (
  id bigserial PRIMARY KEY,
  biz_type varchar(63) NOT NULL DEFAULT '' UNIQUE,
  begin_id bigint NOT NULL DEFAULT 0,
  max_id bigint NOT NULL DEFAULT 0,
  step integer DEFAULT 0,
  delta integer NOT NULL DEFAULT 1,
  remainder integer NOT NULL DEFAULT 0,
  create_time timestamp NOT NULL DEFAULT '2010-01-01 00:00:00',
  update_time timestamp NOT NULL DEFAULT '2010-01-01 00:00:00',
  version bigint NOT NULL DEFAULT 0
)`,
	}
)

// LeafDDL returns the CREATE TABLE of Meituan Leaf's leaf_alloc, by its published schema,
// named table, on MySQL or PostgreSQL; "" on another dialect.
func LeafDDL(d sqldb.Dialect, table string) string { return ddl(leafDDL, d, table) }

// TinyidDDL returns the CREATE TABLE of didi tinyid's tiny_id_info, by its published
// schema, named table, on MySQL or PostgreSQL; "" on another dialect.
func TinyidDDL(d sqldb.Dialect, table string) string { return ddl(tinyidDDL, d, table) }

func ddl(m map[sqldb.Dialect]string, d sqldb.Dialect, table string) string {
	if s, ok := m[d]; ok {
		return fmt.Sprintf(s, table)
	}
	return ""
}

// ph returns the i-th placeholder, from 1.
func ph(d sqldb.Dialect, i int) string {
	if d == sqldb.Postgres {
		return fmt.Sprintf("$%d", i)
	}
	return "?"
}

// LeafBlock takes a block of tag from table as Leaf's segment mode does, by its published
// statements, and returns its IDs: in one transaction, UPDATE leaf_alloc SET max_id =
// max_id + step WHERE biz_tag = ?, then SELECT biz_tag, max_id, step FROM leaf_alloc
// WHERE biz_tag = ?; the block runs from max_id - step to max_id - 1. It is Leaf running
// beside idgen in a test: not a store.
func LeafBlock(ctx context.Context, db *sql.DB, d sqldb.Dialect, table, tag string) ([]int64, error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("segmenttest: leaf: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "UPDATE "+table+" SET max_id = max_id + step WHERE biz_tag = "+ph(d, 1), tag); err != nil {
		return nil, fmt.Errorf("segmenttest: leaf: %w", err)
	}
	var bt string
	var maxID, step int64
	if err := tx.QueryRowContext(ctx, "SELECT biz_tag, max_id, step FROM "+table+" WHERE biz_tag = "+ph(d, 1), tag).Scan(&bt, &maxID, &step); err != nil {
		return nil, fmt.Errorf("segmenttest: leaf: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("segmenttest: leaf: %w", err)
	}
	ids := make([]int64, 0, step)
	for id := maxID - step; id < maxID; id++ {
		ids = append(ids, id)
	}
	return ids, nil
}

// ErrLostRaces is returned by TinyidBlock when every one of its 1000 version checks lost.
var ErrLostRaces = errors.New("segmenttest: tinyid: lost 1000 version checks")

// TinyidBlock takes a block of tag from table as tinyid's getNextSegmentId does, by its
// published statements, and returns its IDs: read the row, then update tiny_id_info set
// max_id = ?, update_time = now(), version = version + 1 where id = ? and max_id = ? and
// version = ? and biz_type = ?, again on a lost race; the segment starts at the old
// max_id and hands out, by delta, the IDs above it with the row's remainder. It is
// tinyid running beside idgen in a test: not a store.
func TinyidBlock(ctx context.Context, db *sql.DB, d sqldb.Dialect, table, tag string) ([]int64, error) {
	for range 1000 {
		var id, maxID, step, delta, rem, version int64
		err := db.QueryRowContext(ctx, "SELECT id, max_id, step, delta, remainder, version FROM "+table+" WHERE biz_type = "+ph(d, 1), tag).
			Scan(&id, &maxID, &step, &delta, &rem, &version)
		if err != nil {
			return nil, fmt.Errorf("segmenttest: tinyid: %w", err)
		}
		res, err := db.ExecContext(ctx, "UPDATE "+table+" SET max_id = "+ph(d, 1)+", update_time = CURRENT_TIMESTAMP, version = version + 1 WHERE id = "+ph(d, 2)+
			" AND max_id = "+ph(d, 3)+" AND version = "+ph(d, 4)+" AND biz_type = "+ph(d, 5), maxID+step, id, maxID, version, tag)
		if err != nil {
			return nil, fmt.Errorf("segmenttest: tinyid: %w", err)
		}
		if n, _ := res.RowsAffected(); n != 1 {
			continue
		}
		// SegmentId.init: move the current ID to one with the remainder, then back a delta;
		// nextId: add delta while not above the new max_id.
		cur := maxID
		if cur%delta != rem {
			for cur%delta != rem {
				cur++
			}
			cur -= delta
		}
		var ids []int64
		for next := cur + delta; next <= maxID+step; next += delta {
			ids = append(ids, next)
		}
		return ids, nil
	}
	return nil, ErrLostRaces
}
