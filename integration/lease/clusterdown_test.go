//go:build unix

package lease_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idgen/idgen/integration/internal/testdb"
	"github.com/idgen/idgen/runtime/lease/leasetest"
	"github.com/idgen/idgen/runtime/snowflake"
)

// TestProcessesClusterMasterDies: a fleet of worker processes leases from a Redis Cluster
// of the test's own (three masters, no replicas, the AOF on); the master holding the
// fleet's hash-tagged keys is SIGKILLed mid-run and started again on its AOF two TTLs
// later. While it is down every renewal fails, each generator stops at its deadline and
// Next says so with a *NotHeldError; back, each renewal finds its lease expired (a
// *LostError), each process claims again and issues only then, after its predecessor's
// ticks. No ID repeats.
func TestProcessesClusterMasterDies(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes for about eight seconds")
	}
	if os.Getenv(testdb.RedisClusterEnv) == "" {
		t.Skip("set " + testdb.RedisClusterEnv + " to run the Redis Cluster tests (this one starts a cluster of its own)")
	}
	nodes := testdb.StartRedisCluster(t, 3, "--appendonly", "yes")
	tg := leasetest.Target{Kind: "rediscluster", DSN: strings.Join([]string{nodes[0].Addr, nodes[1].Addr, nodes[2].Addr}, ","),
		Prefix: "idgen_test:lease:", Persistent: true}
	const (
		ns        = "down"
		ttl       = time.Second
		maxWorker = 15
		procs     = 6
		down      = 2 * ttl
	)
	// The master of the fleet's slot (open tags the prefix: "{idgen_test:lease:down}:").
	c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{nodes[0].Addr}})
	m, err := c.MasterForKey(context.Background(), "{"+tg.Prefix+ns+"}:holder")
	c.Close()
	if err != nil {
		t.Fatal(err)
	}
	var victim *testdb.RedisServer
	for _, n := range nodes {
		if n.Addr == m.Options().Addr {
			victim = n
		}
	}
	if victim == nil {
		t.Fatalf("no node of the cluster is %s", m.Options().Addr)
	}
	dir := t.TempDir()
	var all []*leasetest.Proc
	for i := range procs {
		name := fmt.Sprintf("p%d", i)
		p := leasetest.Start(t, "fleet", name, leasetest.Spec{Target: tg, NS: ns, TTL: ttl, Max: maxWorker,
			Events: filepath.Join(dir, name+".events"), IDs: filepath.Join(dir, name+".ids")})
		p.Run(t)
		all = append(all, p)
	}
	defer func() {
		for _, p := range all {
			p.Stop()
		}
	}()
	for _, p := range all {
		p.WaitEvent(t, "first", 1, 20*time.Second)
	}
	t0 := time.Now()
	leasetest.SleepUntil(t0.Add(ttl))
	killAt := time.Now()
	victim.Kill()
	leasetest.SleepUntil(killAt.Add(down))
	victim.Start()
	back := time.Now()
	for _, p := range all {
		for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			if _, r := outage(p); r.Kind != "" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s did not renew or claim within 20 s of the master's restart; events: %v", p.Name, p.Events(""))
			}
		}
	}
	leasetest.SleepUntil(time.Now().Add(ttl))
	for _, p := range all {
		p.Signal(t, syscall.SIGTERM)
	}
	for _, p := range all {
		select {
		case <-p.Exited:
		case <-time.After(15 * time.Second):
			t.Fatalf("%s did not exit", p.Name)
		}
		if p.Err != nil {
			t.Errorf("%s: %v; stderr:\n%s", p.Name, p.Err, p.Stderr.String())
		}
		for _, e := range p.Events("error") {
			t.Errorf("%s logged an error: %s", p.Name, e.F["err"])
		}
	}
	t.Logf("master %s killed at +%v, answering again at +%v", victim.Addr, killAt.Sub(t0).Round(time.Millisecond), back.Sub(t0).Round(time.Millisecond))

	idsOf := leasetest.CheckIDs(t, all, maxWorker)
	layout := snowflake.Classic()
	for _, p := range all {
		deadline, r := outage(p)
		failed, notheld, lost := 0, "", ""
		for _, e := range p.Events("") {
			if !e.At().After(killAt) || !e.At().Before(r.At()) {
				continue
			}
			switch e.Kind {
			case "renew-failed":
				failed++
			case "notheld":
				notheld = cmpStr(notheld, e.F["err"])
			case "lost":
				lost = cmpStr(lost, e.F["err"])
			}
		}
		if !deadline.After(killAt) || !deadline.Before(back) {
			t.Errorf("%s: deadline +%v not between the kill and the restart: the outage proved nothing", p.Name, deadline.Sub(t0))
		}
		if failed == 0 || notheld == "" {
			t.Errorf("%s: %d failed renewals and notheld %q while the master was down; events: %v", p.Name, failed, notheld, p.Events(""))
		}
		var lastBefore, firstAfter time.Time
		silent := 0
		for _, x := range idsOf[p] {
			made, _ := layout.Time(x.ID)
			if made.After(deadline) && x.Returned.Before(r.At().Add(-5*time.Millisecond)) {
				silent++
			}
			if !made.After(deadline) && made.After(lastBefore) {
				lastBefore = made
			}
			if made.After(deadline) && (firstAfter.IsZero() || x.Returned.Before(firstAfter)) {
				firstAfter = x.Returned
			}
		}
		if silent > 0 {
			t.Errorf("%s: %d IDs stamped after its deadline +%v returned before it resumed (+%v)", p.Name, silent, deadline.Sub(t0), r.At().Sub(t0))
		}
		if firstAfter.IsZero() {
			t.Errorf("%s issued nothing after its deadline", p.Name)
			continue
		}
		t.Logf("%s: last ID stamped +%v, deadline +%v, %d renewals failed, Next: %q, then %q; %s worker %d at +%v, first ID after it at +%v",
			p.Name, lastBefore.Sub(t0).Round(time.Millisecond), deadline.Sub(t0).Round(time.Millisecond), failed, notheld, lost,
			r.Kind, r.Int("worker"), r.At().Sub(t0).Round(time.Millisecond), firstAfter.Sub(t0).Round(time.Millisecond))
	}
}

// outage finds in p's events the first spell its gate was shut: the deadline of a claim
// or renewal that passed before the next one succeeded, and that next one (a zero event
// while there is none yet).
func outage(p *leasetest.Proc) (deadline time.Time, resumed leasetest.Event) {
	for _, e := range p.Events("") {
		if e.Kind != "acquired" && e.Kind != "renewed" {
			continue
		}
		if !deadline.IsZero() && e.At().After(deadline) {
			return deadline, e
		}
		deadline = time.Unix(0, e.Int("deadline"))
	}
	return deadline, leasetest.Event{}
}

// cmpStr returns have if set, else s.
func cmpStr(have, s string) string {
	if have != "" {
		return have
	}
	return s
}
