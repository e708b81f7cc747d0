package bench_test

import (
	"slices"
	"testing"
	"time"

	bwsnowflake "github.com/bwmarrin/snowflake"

	"github.com/idgen/idgen/bench"
	"github.com/idgen/idgen/runtime/snowflake"
)

// smokeWindow is long enough for every generator to issue IDs, short enough for go test.
const smokeWindow = 50 * time.Millisecond

func TestWindowPeers(t *testing.T) {
	for _, p := range bench.Peers() {
		t.Run(p.Name, func(t *testing.T) {
			next, err := p.New()
			if err != nil {
				t.Fatal(err)
			}
			r := bench.Window(2, smokeWindow, func(int) error { return next() })
			if r.Errors > 0 {
				t.Errorf("%d errors, one: %v", r.Errors, r.Err)
			}
			if len(r.Counts) != 2 || r.Total() == 0 {
				t.Errorf("counts %v, want 2 goroutines issuing IDs", r.Counts)
			}
			if r.Wall < smokeWindow {
				t.Errorf("wall %v, want at least the %v window", r.Wall, smokeWindow)
			}
		})
	}
}

// TestWindowIdgenUnique keeps the IDs of each goroutine and checks that no ID was issued
// twice and that the counts are the IDs kept.
func TestWindowIdgenUnique(t *testing.T) {
	for _, tc := range []struct {
		name   string
		newGen func() (*snowflake.Generator, error)
	}{
		{"capped", bench.IdgenCapped},
		{"borrow", bench.IdgenBorrow},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := tc.newGen()
			if err != nil {
				t.Fatal(err)
			}
			const goroutines = 2
			ids := make([][]snowflake.ID, goroutines)
			r := bench.Window(goroutines, smokeWindow, func(i int) error {
				id, err := g.Next()
				if err == nil {
					ids[i] = append(ids[i], id)
				}
				return err
			})
			if r.Errors > 0 {
				t.Fatalf("%d errors, one: %v", r.Errors, r.Err)
			}
			if r.Total() == 0 {
				t.Fatal("no IDs issued")
			}
			for i, c := range r.Counts {
				if int64(len(ids[i])) != c {
					t.Errorf("goroutine %d: count %d, %d IDs kept", i, c, len(ids[i]))
				}
			}
			all := slices.Concat(ids...)
			slices.Sort(all)
			for i := 1; i < len(all); i++ {
				if all[i] == all[i-1] {
					t.Fatalf("ID %d issued twice", all[i])
				}
			}
		})
	}
}

func TestResult(t *testing.T) {
	for _, tc := range []struct {
		name               string
		r                  bench.Result
		rate, cores, share float64
	}{
		{"fair", bench.Result{Counts: []int64{50, 50}, Wall: time.Second, CPU: time.Second}, 100, 1, 1},
		{"skewed", bench.Result{Counts: []int64{25, 75}, Wall: 2 * time.Second, CPU: 3 * time.Second}, 50, 1.5, 0.5},
		{"starved", bench.Result{Counts: []int64{0, 10, 10, 20}, Wall: time.Second, CPU: -1}, 40, -1, 0},
		{"nothing", bench.Result{Counts: []int64{0}, Wall: time.Second}, 0, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.r.Rate(); got != tc.rate {
				t.Errorf("Rate() = %v, want %v", got, tc.rate)
			}
			if got := tc.r.Cores(); got != tc.cores {
				t.Errorf("Cores() = %v, want %v", got, tc.cores)
			}
			if got := tc.r.MinShare(); got != tc.share {
				t.Errorf("MinShare() = %v, want %v", got, tc.share)
			}
		})
	}
}

// TestBwmarrin checks that Bwmarrin builds nodes of the asked width and leaves the
// package variables of bwmarrin/snowflake as it found them.
func TestBwmarrin(t *testing.T) {
	nodeBits, stepBits := bwsnowflake.NodeBits, bwsnowflake.StepBits
	for _, tc := range []struct {
		steps    uint8
		wantNode int64
	}{
		{12, 1},
		{22, 0},
	} {
		n, err := bench.Bwmarrin(tc.steps)
		if err != nil {
			t.Fatal(err)
		}
		if bwsnowflake.NodeBits != nodeBits || bwsnowflake.StepBits != stepBits {
			t.Errorf("Bwmarrin(%d) left NodeBits, StepBits = %d, %d, want %d, %d",
				tc.steps, bwsnowflake.NodeBits, bwsnowflake.StepBits, nodeBits, stepBits)
		}
		// More IDs than a 12-bit sequence holds in a millisecond.
		prev := n.Generate()
		for range 5000 {
			id := n.Generate()
			if id <= prev {
				t.Fatalf("Bwmarrin(%d): ID %d after %d", tc.steps, id, prev)
			}
			prev = id
		}
		// The node field sits above the step field.
		node := prev.Int64() >> tc.steps & (1<<(22-tc.steps) - 1)
		if node != tc.wantNode {
			t.Errorf("Bwmarrin(%d): node field %d, want %d", tc.steps, node, tc.wantNode)
		}
	}
}
