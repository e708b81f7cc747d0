package segment_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/idgen/idgen/integration/internal/testdb"
	"github.com/idgen/idgen/runtime/segment"
	"github.com/idgen/idgen/runtime/segment/segmenttest"
	"github.com/idgen/idgen/runtime/sqldb"
)

// peerDBs are the databases Leaf and tinyid run on.
var peerDBs = []struct {
	name, driver string
	dialect      sqldb.Dialect
	dsn          func(t testing.TB, name string) string
}{
	{"postgres", "pgx", sqldb.Postgres, testdb.Postgres},
	{"mysql", "mysql", sqldb.MySQL, testdb.MySQL},
}

// idSet counts the IDs both sides hand out.
type idSet struct {
	mu   sync.Mutex
	seen map[int64]string
	dups []string
	n    map[string]int
}

func (s *idSet) add(who string, ids ...int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seen == nil {
		s.seen, s.n = map[int64]string{}, map[string]int{}
	}
	for _, id := range ids {
		if prev, ok := s.seen[id]; ok {
			s.dups = append(s.dups, fmt.Sprintf("%d by %s and %s", id, prev, who))
		}
		s.seen[id] = who
		s.n[who]++
	}
}

// TestPeers: Leaf's and tinyid's own allocation (their published SQL) and idgen's
// allocators on the same rows at once, on PostgreSQL and MySQL: no ID twice; tinyid's
// two interleaved databases (delta 2, remainders 0 and 1) keep their parity on both
// sides. And each store refuses a table missing a column, naming it.
func TestPeers(t *testing.T) {
	const workers, blocks = 4, 25
	for _, pdb := range peerDBs {
		t.Run(pdb.name, func(t *testing.T) {
			db, err := sql.Open(pdb.driver, pdb.dsn(t, "segment_peers"))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			ctx := context.Background()
			exec := func(q string, args ...any) {
				t.Helper()
				if _, err := db.ExecContext(ctx, q, args...); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			for _, tb := range []string{"leaf_alloc", "tiny_id_info", "tiny_id_info_b", "leaf_alloc_old"} {
				exec("DROP TABLE IF EXISTS " + tb)
			}
			exec(segmenttest.LeafDDL(pdb.dialect, "leaf_alloc"))
			exec("INSERT INTO leaf_alloc (biz_tag, max_id, step, description) VALUES ('orders', 1, 100, 'orders of the shop')")
			exec(segmenttest.TinyidDDL(pdb.dialect, "tiny_id_info"))
			exec(segmenttest.TinyidDDL(pdb.dialect, "tiny_id_info_b"))
			exec("INSERT INTO tiny_id_info (biz_type, begin_id, max_id, step, delta, remainder) VALUES ('orders', 1, 0, 100, 2, 0)")
			exec("INSERT INTO tiny_id_info_b (biz_type, begin_id, max_id, step, delta, remainder) VALUES ('orders', 1, 0, 100, 2, 1)")

			t.Run("leaf", func(t *testing.T) {
				store, err := segment.NewLeaf(db, pdb.dialect, segment.PeerOptions{})
				if err != nil {
					t.Fatal(err)
				}
				var set idSet
				run(t, workers, func(ctx context.Context, w int) error {
					for range blocks {
						ids, err := segmenttest.LeafBlock(ctx, db, pdb.dialect, "leaf_alloc", "orders")
						if err != nil {
							return err
						}
						set.add("leaf", ids...)
					}
					return nil
				}, func(ctx context.Context, w int) error {
					a, err := segment.New(store, "orders", segment.Options{Step: 50, MaxStep: 50, Threshold: 0.5})
					if err != nil {
						return err
					}
					ids, err := a.NextN(ctx, blocks*50)
					set.add("idgen", ids...)
					return err
				})
				if len(set.dups) > 0 {
					t.Fatalf("%d duplicates, first %s", len(set.dups), set.dups[0])
				}
				t.Logf("Leaf handed out %d IDs, idgen %d, none twice", set.n["leaf"], set.n["idgen"])
				if set.n["leaf"] != workers*blocks*100 || set.n["idgen"] != workers*blocks*50 {
					t.Fatalf("counts %v", set.n)
				}
			})

			t.Run("tinyid", func(t *testing.T) {
				var set idSet
				for _, table := range []string{"tiny_id_info", "tiny_id_info_b"} {
					store, err := segment.NewTinyid(db, pdb.dialect, segment.PeerOptions{Table: table})
					if err != nil {
						t.Fatal(err)
					}
					parity := map[string]int64{"tiny_id_info": 0, "tiny_id_info_b": 1}[table]
					run(t, workers, func(ctx context.Context, w int) error {
						for range blocks {
							ids, err := segmenttest.TinyidBlock(ctx, db, pdb.dialect, table, "orders")
							if err != nil {
								return err
							}
							set.add("tinyid "+table, ids...)
							for _, id := range ids {
								if id%2 != parity {
									return fmt.Errorf("tinyid on %s handed out %d", table, id)
								}
							}
						}
						return nil
					}, func(ctx context.Context, w int) error {
						a, err := segment.New(store, "orders", segment.Options{Step: 60, MaxStep: 60, Threshold: 0.5})
						if err != nil {
							return err
						}
						ids, err := a.NextN(ctx, blocks*30)
						set.add("idgen "+table, ids...)
						for _, id := range ids {
							if id%2 != parity {
								return fmt.Errorf("idgen on %s handed out %d", table, id)
							}
						}
						return err
					})
				}
				if len(set.dups) > 0 {
					t.Fatalf("%d duplicates, first %s", len(set.dups), set.dups[0])
				}
				t.Logf("IDs handed out, none twice: %v", set.n)
			})

			t.Run("missing column", func(t *testing.T) {
				exec(strings.Replace(segmenttest.LeafDDL(pdb.dialect, "leaf_alloc_old"), "description varchar(256) DEFAULT NULL,\n", "", 1))
				exec("INSERT INTO leaf_alloc_old (biz_tag, max_id, step) VALUES ('orders', 1, 100)")
				store, err := segment.NewLeaf(db, pdb.dialect, segment.PeerOptions{Table: "leaf_alloc_old"})
				if err != nil {
					t.Fatal(err)
				}
				_, err = store.Reserve(ctx, "orders", 10)
				var ce *segment.ColumnError
				if !errors.As(err, &ce) || !errors.Is(err, segment.ErrMissingColumn) || ce.Column != "description" ||
					!strings.HasPrefix(err.Error(), `segment: table leaf_alloc_old has no column "description", which leaf's schema has`) {
					t.Fatalf("Reserve on a table without description = %v", err)
				}
				tiny, err := segment.NewTinyid(db, pdb.dialect, segment.PeerOptions{Table: "leaf_alloc"})
				if err != nil {
					t.Fatal(err)
				}
				if _, err = tiny.Reserve(ctx, "orders", 10); !errors.As(err, &ce) || ce.Column != "id" {
					t.Fatalf("tinyid on Leaf's table = %v, want a *ColumnError for id", err)
				}
				if _, err = store.Reserve(ctx, "payments", 10); err == nil || !strings.Contains(err.Error(), "no column") {
					t.Fatalf("second Reserve = %v", err)
				}
				good, _ := segment.NewLeaf(db, pdb.dialect, segment.PeerOptions{})
				var nr *segment.NoRowError
				if _, err = good.Reserve(ctx, "payments", 10); !errors.As(err, &nr) || !strings.Contains(err.Error(), `table leaf_alloc has no row for tag "payments"`) {
					t.Fatalf("Reserve of a tag without a row = %v", err)
				}
			})
		})
	}
}

// run runs n goroutines of old and n of idgen at once and fails t on the first error.
func run(t *testing.T, n int, old, idgen func(ctx context.Context, w int) error) {
	t.Helper()
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 2*n)
	for w := range n {
		wg.Go(func() { errs <- old(ctx, w) })
		wg.Go(func() { errs <- idgen(ctx, w) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}
