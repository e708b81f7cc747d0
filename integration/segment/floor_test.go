package segment_test

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"

	"github.com/idgen/idgen/runtime/segment"
	"github.com/idgen/idgen/runtime/segment/segmenttest"
)

// TestFloorAdvice: a *FloorError names the value of max_id that starts above the floor,
// and it depends on the table. Leaf's max_id is the next ID Leaf hands out: a row at the
// floor (5000) is refused with "at least 5001" (the advice said 5000, which the row
// already was), and a row at 5001 starts at 5001. idgen's own table and tinyid's keep the
// last ID handed out: a row at 4999 is refused with "at least 5000", and one at 5000
// starts at 5001. On PostgreSQL and MySQL.
func TestFloorAdvice(t *testing.T) {
	const floor = 5000
	for _, pdb := range peerDBs {
		t.Run(pdb.name, func(t *testing.T) {
			db, err := sql.Open(pdb.driver, pdb.dsn(t, "segment_floor"))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			ctx := context.Background()
			exec := func(q string) {
				t.Helper()
				if _, err := db.ExecContext(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			for _, tb := range []string{"leaf_alloc", "tiny_id_info", "idgen_segment"} {
				exec("DROP TABLE IF EXISTS " + tb)
			}
			exec(segmenttest.LeafDDL(pdb.dialect, "leaf_alloc"))
			exec("INSERT INTO leaf_alloc (biz_tag, max_id, step) VALUES ('at_floor', 5000, 100), ('above', 5001, 100)")
			exec(segmenttest.TinyidDDL(pdb.dialect, "tiny_id_info"))
			exec("INSERT INTO tiny_id_info (biz_type, begin_id, max_id, step, delta, remainder) VALUES ('below', 1, 4999, 100, 1, 0), ('at_floor', 1, 5000, 100, 1, 0)")
			idgenTable, err := segment.NewSQL(db, pdb.dialect, segment.SQLOptions{})
			if err != nil {
				t.Fatal(err)
			}
			// Create starts a tag at first: max_id first-1.
			if err := idgenTable.Create(ctx, "below", floor, 100); err != nil {
				t.Fatal(err)
			}
			if err := idgenTable.Create(ctx, "at_floor", floor+1, 100); err != nil {
				t.Fatal(err)
			}
			leaf, err := segment.NewLeaf(db, pdb.dialect, segment.PeerOptions{})
			if err != nil {
				t.Fatal(err)
			}
			tinyid, err := segment.NewTinyid(db, pdb.dialect, segment.PeerOptions{})
			if err != nil {
				t.Fatal(err)
			}
			next := func(s segment.Store, tag string) (int64, error) {
				a, err := segment.New(s, tag, segment.Options{Step: 100, MaxStep: 100, Floor: floor})
				if err != nil {
					t.Fatal(err)
				}
				return a.NextInt64(ctx)
			}
			for _, tc := range []struct {
				name     string
				store    segment.Store
				refused  string // the tag refused
				advice   string
				counter  int64
				accepted string // the tag that starts at floor+1
			}{
				{"leaf", leaf, "at_floor", "move the tag's counter (max_id, the next ID the table hands out) up to at least 5001, never down", floor + 1, "above"},
				{"idgen", idgenTable, "below", "move the tag's counter (max_id, the last ID the table handed out) up to at least 5000, never down", floor, "at_floor"},
				{"tinyid", tinyid, "below", "move the tag's counter (max_id, the last ID the table handed out) up to at least 5000, never down", floor, "at_floor"},
			} {
				t.Run(tc.name, func(t *testing.T) {
					_, err := next(tc.store, tc.refused)
					var fe *segment.FloorError
					if !errors.As(err, &fe) || fe.MinCounter() != tc.counter || !strings.Contains(err.Error(), "does not start above the floor 5000 (the highest ID already issued): "+tc.advice) {
						t.Fatalf("tag %s: %v\nwant a *FloorError advising %q", tc.refused, err, tc.advice)
					}
					t.Log(err)
					if id, err := next(tc.store, tc.accepted); err != nil || id != floor+1 {
						t.Fatalf("tag %s = %d, %v; want %d", tc.accepted, id, err, floor+1)
					}
				})
			}
		})
	}
}
