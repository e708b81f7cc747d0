//go:build unix

package etcdlease

import (
	"fmt"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/idgen/idgen/runtime/lease/leasetest"
	"github.com/idgen/idgen/runtime/snowflake"
)

// TestProcessesEtcdRestart: a fleet of worker processes leases from an etcd of the test's
// own, which is killed mid-run and restarted on its data two TTLs later. While it is down
// every renewal fails, and each generator stops at its deadline (its last successful
// renewal's start plus TTL minus Margin), before its etcd lease could lapse; etcd comes
// back with its leases (it restores them with a fresh TTL), and each process issues again
// only after a renewal or a new claim succeeded. No ID repeats.
func TestProcessesEtcdRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes for about seven seconds")
	}
	srv := startEtcd(t)
	tg := leasetest.Target{Kind: "etcd", DSN: srv.clientAddr, Prefix: "idgen_test/lease/"}
	const (
		ttl       = time.Second
		maxWorker = 15
		procs     = 6
		down      = 2 * ttl
	)
	dir := t.TempDir()
	var all []*leasetest.Proc
	for i := range procs {
		name := fmt.Sprintf("p%d", i)
		p := leasetest.Start(t, "fleet", name, leasetest.Spec{Target: tg, NS: "restart", TTL: ttl, Max: maxWorker,
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
	srv.kill()
	leasetest.SleepUntil(killAt.Add(down))
	restartAt := time.Now()
	srv.start()
	back := time.Now()
	// Each process issues again once a renewal (or a claim) succeeds after its gate closed.
	for _, p := range all {
		for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			if _, r := outage(p); r.Kind != "" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s did not renew or claim within 20 s of etcd's restart; events: %v", p.Name, p.Events(""))
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
	t.Logf("etcd killed at +%v, started again at +%v, answering the test's client at +%v",
		killAt.Sub(t0).Round(time.Millisecond), restartAt.Sub(t0).Round(time.Millisecond), back.Sub(t0).Round(time.Millisecond))

	idsOf := leasetest.CheckIDs(t, all, maxWorker)
	layout := snowflake.Classic()
	for _, p := range all {
		deadline, r := outage(p)
		failed := 0
		for _, e := range p.Events("renew-failed") {
			if e.At().After(killAt) && e.At().Before(r.At()) {
				failed++
			}
		}
		if !deadline.After(killAt) || !deadline.Before(restartAt) {
			t.Errorf("%s: deadline +%v not between the kill and the restart: the outage proved nothing", p.Name, deadline.Sub(t0))
		}
		if failed == 0 {
			t.Errorf("%s logged no failed renewal while etcd was down; events: %v", p.Name, p.Events(""))
		}
		// Nothing stamped after the deadline was returned before the process resumed.
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
		t.Logf("%s: worker %d; last ID stamped +%v, deadline +%v, %d renewals failed; %s at +%v, first ID stamped after the deadline returned at +%v",
			p.Name, r.Int("worker"), lastBefore.Sub(t0).Round(time.Millisecond), deadline.Sub(t0).Round(time.Millisecond), failed, r.Kind,
			r.At().Sub(t0).Round(time.Millisecond), firstAfter.Sub(t0).Round(time.Millisecond))
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
