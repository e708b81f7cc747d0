package leasetest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idgen/idgen/runtime/snowflake"
)

// recorder is a testing.TB that keeps what CheckIDs reports instead of failing the test.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper()             {}
func (r *recorder) Logf(string, ...any) {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
	panic(r)
}

// proc writes a worker's files: an acquired event per entry of acquired, and one ID per
// tick of worker w.
func proc(t *testing.T, name string, w int64, acquired int, ticks ...int64) *Proc {
	dir := t.TempDir()
	p := &Proc{Name: name, Spec: Spec{Events: filepath.Join(dir, "events"), IDs: filepath.Join(dir, "ids")}}
	var ev, ids strings.Builder
	for i := range acquired {
		fmt.Fprintf(&ev, "acquired worker=%d at=%d\n", w, i+1)
	}
	for i, tick := range ticks {
		id, err := snowflake.Classic().Compose(snowflake.Parts{Tick: tick, Worker: w, Seq: int64(i % 4096)})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&ids, "%d 1 2\n", id)
	}
	if err := os.WriteFile(p.Spec.Events, []byte(ev.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p.Spec.IDs, []byte(ids.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCheckIDsTurns: a worker ID that passes from a to b and back to a is fine when a
// acquired it twice (the fleet's renew-after-loss case, which CheckIDs once flagged as an
// overlap), and flagged when a acquired it once or when two holders share a tick.
func TestCheckIDsTurns(t *testing.T) {
	for _, tc := range []struct {
		name   string
		procs  func(t *testing.T) []*Proc
		errors int
	}{
		{"a, b, a again, acquired twice", func(t *testing.T) []*Proc {
			return []*Proc{proc(t, "a", 3, 2, 10, 11, 12, 30, 31), proc(t, "b", 3, 1, 20, 21)}
		}, 0},
		{"a, b, a again, acquired once", func(t *testing.T) []*Proc {
			return []*Proc{proc(t, "a", 3, 1, 10, 11, 12, 30, 31), proc(t, "b", 3, 1, 20, 21)}
		}, 1},
		{"b starts in a's last tick", func(t *testing.T) []*Proc {
			return []*Proc{proc(t, "a", 3, 1, 10, 11, 12), proc(t, "b", 3, 1, 12, 13)}
		}, 1},
		{"interleaved", func(t *testing.T) []*Proc {
			return []*Proc{proc(t, "a", 3, 1, 10, 12, 14), proc(t, "b", 3, 1, 11, 13)}
		}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &recorder{TB: t}
			func() {
				defer func() {
					if v := recover(); v != nil && v != r {
						panic(v)
					}
				}()
				CheckIDs(r, tc.procs(t), 7)
			}()
			if len(r.errs) != tc.errors {
				t.Errorf("CheckIDs reported %d errors, want %d: %q", len(r.errs), tc.errors, r.errs)
			}
		})
	}
}
