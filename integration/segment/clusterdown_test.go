//go:build unix

package segment_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idgen/idgen/integration/internal/testdb"
)

// TestProcessesClusterMasterDies: four processes draw IDs from a Redis Cluster of the
// test's own (three masters, no replicas, the AOF on), two from a tag whose key is on
// the master the test kills mid-run and two from a tag on another master. While the
// master is down the first two get *UnavailableError once their buffered IDs run out
// (the others draw on); the master is started again on its data, both draw again, and no
// ID repeats and none goes back, in any process.
func TestProcessesClusterMasterDies(t *testing.T) {
	if os.Getenv(testdb.RedisClusterEnv) == "" {
		t.Skip("set " + testdb.RedisClusterEnv + " to run the Redis Cluster tests (this one starts a cluster of its own)")
	}
	nodes := testdb.StartRedisCluster(t, 3, "--appendonly", "yes")
	victim := nodes[0]
	c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{victim.Addr}})
	defer c.Close()
	ctx := context.Background()
	const prefix = "idgen_test:segment:down:"
	// A tag on the victim and one elsewhere: keys hash to slots, slots to masters.
	var onVictim, elsewhere string
	for i := 0; onVictim == "" || elsewhere == ""; i++ {
		tag := fmt.Sprint("order", i)
		m, err := c.MasterForKey(ctx, prefix+tag)
		if err != nil {
			t.Fatal(err)
		}
		if m.Options().Addr == victim.Addr {
			onVictim = cmp(onVictim, tag)
		} else {
			elsewhere = cmp(elsewhere, tag)
		}
	}
	tg := target{Kind: "rediscluster", DSN: strings.Join([]string{nodes[0].Addr, nodes[1].Addr, nodes[2].Addr}, ","), Prefix: prefix, Persistent: true}
	dir := t.TempDir()
	const procs = 4
	tags := []string{onVictim, onVictim, elsewhere, elsewhere}
	path := func(i int) string { return filepath.Join(dir, fmt.Sprintf("ids%d", i)) }
	var cmds []*exec.Cmd
	var stderr []*bytes.Buffer
	for i := range procs {
		js, _ := json.Marshal(childSpec{Target: tg, Tag: tags[i], IDs: path(i), Unavailable: true})
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), childEnv+"=draw", specEnv+"="+string(js))
		var buf bytes.Buffer
		cmd.Stderr = &buf
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, stderr = append(cmds, cmd), append(stderr, &buf)
	}
	defer func() {
		for _, c := range cmds {
			c.Process.Kill()
		}
	}()
	drawn := func(n []int) func() bool {
		return func() bool {
			for i := range procs {
				if len(readIDs(t, path(i))) < n[i] {
					return false
				}
			}
			return true
		}
	}
	waitFor(t, "every process to draw 3,000 IDs", drawn([]int{3000, 3000, 3000, 3000}))
	victim.Kill()
	killed := make([]int, procs)
	for i := range procs {
		killed[i] = len(readIDs(t, path(i)))
	}
	// The others draw on while the victim is down.
	waitFor(t, "the processes on the live master to draw 3,000 more", drawn([]int{0, 0, killed[2] + 3000, killed[3] + 3000}))
	time.Sleep(time.Second) // the victim stays down for a while: its tag's buffers run out
	down := make([]int, procs)
	for i := range procs {
		down[i] = len(readIDs(t, path(i)))
	}
	victim.Start()
	waitFor(t, "every process to draw 3,000 more after the master is back", drawn([]int{down[0] + 3000, down[1] + 3000, down[2] + 3000, down[3] + 3000}))
	for _, c := range cmds {
		c.Process.Signal(syscall.SIGTERM)
	}
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Errorf("process %d: %v: %s", i, err, stderr[i])
		}
	}
	all := map[string][]int64{} // by tag: each tag is its own sequence
	for i := range procs {
		ids := readIDs(t, path(i))
		for j := 1; j < len(ids); j++ {
			if ids[j] <= ids[j-1] {
				t.Fatalf("process %d: ID %d after %d", i, ids[j], ids[j-1])
			}
		}
		out := strings.TrimSpace(stderr[i].String())
		if i < 2 && !strings.Contains(out, "as *UnavailableError: true") {
			t.Errorf("process %d (tag %q on the killed master) reported no *UnavailableError: %s", i, tags[i], out)
		}
		t.Logf("process %d, tag %s: %d IDs (%d at the kill, %d at the restart); %s", i, tags[i], len(ids), killed[i], down[i], out[strings.LastIndex(out, "child "):])
		all[tags[i]] = append(all[tags[i]], ids...)
	}
	for _, tag := range []string{onVictim, elsewhere} {
		ids := all[tag]
		slices.Sort(ids)
		dups := 0
		for i := 1; i < len(ids); i++ {
			if ids[i] == ids[i-1] {
				dups++
			}
		}
		if dups > 0 {
			t.Errorf("tag %s: %d duplicate IDs among %d", tag, dups, len(ids))
		}
		t.Logf("tag %s: %d IDs from 2 processes across a master's SIGKILL and restart on its AOF, %d duplicates", tag, len(ids), dups)
	}
}

// cmp returns have if set, else tag.
func cmp(have, tag string) string {
	if have != "" {
		return have
	}
	return tag
}
