package bench_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	sonyflakev1 "github.com/sony/sonyflake"
	sonyflakev2 "github.com/sony/sonyflake/v2"

	"github.com/idgen/idgen/bench"
	"github.com/idgen/idgen/runtime/snowflake"
)

// TestSwitchFromPeers: the real peers issue IDs, then idgen continues on the same worker
// ID with the matching preset and the peer's last ID as its floor (as idgen-server's
// snowflake.floor does): every new ID is greater than every old one and none is equal,
// and idgen decodes the peer's IDs to the peer's worker and time. A layout that does not
// match (classic, counting from 2025) is refused with the floor named.
func TestSwitchFromPeers(t *testing.T) {
	const n = 20_000
	const worker = 1
	peers := []struct {
		name   string
		layout snowflake.Layout
		issue  func(t *testing.T) []int64
	}{
		{"bwmarrin", snowflake.Bwmarrin(), func(t *testing.T) []int64 {
			node, err := bench.Bwmarrin(12) // the defaults: 10 node bits, node 1
			if err != nil {
				t.Fatal(err)
			}
			ids := make([]int64, n)
			for i := range ids {
				ids[i] = node.Generate().Int64()
			}
			return ids
		}},
		{"sonyflake-v1", snowflake.SonyflakeV1(), func(t *testing.T) []int64 {
			sf, err := sonyflakev1.New(sonyflakev1.Settings{MachineID: func() (uint16, error) { return worker, nil }})
			if err != nil {
				t.Fatal(err)
			}
			ids := make([]int64, n)
			for i := range ids {
				v, err := sf.NextID()
				if err != nil {
					t.Fatal(err)
				}
				ids[i] = int64(v)
			}
			return ids
		}},
		{"sonyflake-v2", snowflake.SonyflakeV2(), func(t *testing.T) []int64 {
			sf, err := sonyflakev2.New(sonyflakev2.Settings{MachineID: func() (int, error) { return worker, nil }})
			if err != nil {
				t.Fatal(err)
			}
			ids := make([]int64, n)
			for i := range ids {
				if ids[i], err = sf.NextID(); err != nil {
					t.Fatal(err)
				}
			}
			return ids
		}},
	}
	for _, p := range peers {
		t.Run(p.name, func(t *testing.T) {
			start := time.Now()
			old := p.issue(t)
			end := time.Now()
			floor := slices.Max(old)
			for _, id := range old[:1] {
				parts, err := p.layout.Decode(snowflake.ID(id))
				if err != nil {
					t.Fatal(err)
				}
				at := p.layout.TimeOf(parts.Tick)
				if parts.Worker != worker || at.Before(start.Add(-p.layout.Unit)) || at.After(end) {
					t.Fatalf("%s's ID %d decodes to worker %d at %v, want worker %d between %v and %v", p.name, id, parts.Worker, at, worker, start, end)
				}
			}
			// Classic counts milliseconds from 2025 in the same 22 low bits: its IDs are below
			// those of layouts from 2010 (bwmarrin) or with 10 ms ticks from 2014
			// (sonyflake v1), above sonyflake v2's (10 ms ticks from 2025).
			_, err := snowflake.New(snowflake.Classic(), worker, snowflake.Options{Floor: snowflake.ID(floor)})
			if refused := errors.Is(err, snowflake.ErrBelowFloor); refused != (p.name != "sonyflake-v2") {
				t.Fatalf("classic over %s's IDs: %v", p.name, err)
			}
			g, err := snowflake.New(p.layout, worker, snowflake.Options{Floor: snowflake.ID(floor)})
			if err != nil {
				t.Fatal(err)
			}
			seen := make(map[int64]bool, len(old))
			for _, id := range old {
				seen[id] = true
			}
			if len(seen) != len(old) {
				t.Fatalf("%s issued %d duplicates itself", p.name, len(old)-len(seen))
			}
			for range n {
				id, err := g.Next()
				if err != nil {
					t.Fatal(err)
				}
				if int64(id) <= floor || seen[int64(id)] {
					t.Fatalf("idgen's %d is not above %s's last ID %d", id, p.name, floor)
				}
			}
			t.Logf("%s: %d IDs, then idgen %d IDs on worker %d, all above %d", p.name, n, n, worker, floor)
		})
	}
}
