//go:build unix

package lease_test

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/idgen/idgen/integration/internal/testproc"
	"github.com/idgen/idgen/runtime/lease/leasetest"
)

// TestFreshDatabase: eight processes start together on a new database (no table yet) and
// acquire at the same moment, on every store, three rounds each: no process fails, and
// they hold eight distinct worker IDs. Before the creation race was handled, processes
// starting together on PostgreSQL failed on pg_type's unique index.
func TestFreshDatabase(t *testing.T) {
	const procs, rounds = 8, 3
	for _, k := range kinds {
		t.Run(k.Name, func(t *testing.T) {
			for round := range rounds {
				t.Run(fmt.Sprint(round), func(t *testing.T) {
					tg := k.Setup(t)
					env := leasetest.Env("first", leasetest.Spec{Target: tg, NS: "fresh", TTL: 10 * time.Second, Max: 15})
					g := testproc.Start(t, procs, func(int) []string { return env })
					g.Release()
					workers := map[int64]int{}
					for i := range procs {
						if line := g.Line(i); line != "" {
							w, err := strconv.ParseInt(line, 10, 64)
							if err != nil {
								t.Fatalf("process %d: %q", i, line)
							}
							workers[w]++
						}
					}
					failed := 0
					for _, err := range g.Wait() {
						if err != nil {
							t.Error(err)
							failed++
						}
					}
					for w, n := range workers {
						if n > 1 || w < 0 || w > 15 {
							t.Errorf("worker ID %d held by %d processes", w, n)
						}
					}
					t.Logf("%d processes at once on a new %s database: %d failed, worker IDs %v", procs, k.Name, failed, slices.Sorted(maps.Keys(workers)))
				})
			}
		})
	}
}
