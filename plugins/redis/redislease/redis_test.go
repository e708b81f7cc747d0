package redislease

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idgen/idgen/plugins/redis/redistest"
	"github.com/idgen/idgen/runtime/lease"
)

// TestRedisPersistence runs the backend against servers of the test's own. Without
// persistence New refuses the server with a *NotPersistentError; opted in it works,
// and after a restart a live lease is forgotten and its worker ID handed to a second
// holder. With the AOF on, New accepts the server and the lease survives a SIGKILL.
func TestRedisPersistence(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		args    []string
		opts    Options
		refused bool
		worker  int64 // the worker ID a second claim gets after the restart
	}{
		{"none", nil, Options{}, true, 0},
		{"none opted in", nil, Options{AllowNoPersistence: true}, false, 0},
		{"appendonly", []string{"--appendonly", "yes"}, Options{}, false, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := redistest.Start(t, tc.args...)
			b, err := New(ctx, srv.Client(), tc.opts)
			if tc.refused {
				var npe *NotPersistentError
				if b != nil || !errors.As(err, &npe) || !errors.Is(err, ErrNotPersistent) || npe.Addr != srv.Addr || !strings.HasPrefix(err.Error(), "redislease: redis ") {
					t.Fatalf("New = %v, %v; want a *NotPersistentError", b, err)
				}
				t.Log(err)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c, err := b.Acquire(ctx, 15, lease.NewToken(), time.Minute); err != nil || c.Worker != 0 {
				t.Fatalf("Acquire = %+v, %v; want worker 0", c, err)
			}
			srv.Restart()
			c, err := b.Acquire(ctx, 15, lease.NewToken(), time.Minute)
			if err != nil || c.Worker != tc.worker {
				t.Fatalf("Acquire after a restart = %+v, %v; want worker %d", c, err, tc.worker)
			}
			if c.Worker == 0 {
				t.Logf("after the restart worker 0, leased for a minute, went to a second holder")
			}
		})
	}
}

// TestRedisCluster: on a cluster (servers of the test's own) New checks every master,
// and with a hash-tagged prefix the scripts run: accepted with the AOF on everywhere,
// refused naming the one master without it.
func TestRedisCluster(t *testing.T) {
	ctx := context.Background()
	nodes := redistest.StartCluster(t, 3, "--appendonly", "yes")
	c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{nodes[0].Addr}})
	defer c.Close()
	b, err := New(ctx, c, Options{Prefix: "{idgen:lease}:"})
	if err != nil {
		t.Fatal(err)
	}
	for want := range int64(3) {
		if cl, err := b.Acquire(ctx, 15, lease.NewToken(), time.Minute); err != nil || cl.Worker != want {
			t.Fatalf("Acquire = %+v, %v; want worker %d", cl, err, want)
		}
	}
	// The three hashes must share a slot: a prefix without a hash tag is refused, and no
	// prefix means DefaultClusterPrefix.
	_, err = New(ctx, c, Options{Prefix: "idgen:lease:"})
	var pe *PrefixError
	if !errors.As(err, &pe) || !errors.Is(err, ErrPrefix) || pe.Prefix != "idgen:lease:" {
		t.Fatalf("New with an untagged prefix on a cluster: %v, want a *PrefixError", err)
	}
	t.Log(err)
	for _, bad := range []string{"a{}b:", "a}b{:", "a{b:"} {
		if _, err := New(ctx, c, Options{Prefix: bad}); !errors.Is(err, ErrPrefix) {
			t.Errorf("New with prefix %q: %v, want ErrPrefix", bad, err)
		}
	}
	if d, err := New(ctx, c, Options{}); err != nil || d.Keys()[0] != DefaultClusterPrefix+"holder" {
		t.Fatalf("New with no prefix on a cluster: %v, %v; want keys under %q", d, err, DefaultClusterPrefix)
	} else if cl, err := d.Acquire(ctx, 15, lease.NewToken(), time.Minute); err != nil {
		t.Fatalf("Acquire under DefaultClusterPrefix: %+v, %v", cl, err)
	}
	if err := nodes[2].Client().ConfigSet(ctx, "appendonly", "no").Err(); err != nil {
		t.Fatal(err)
	}
	_, err = New(ctx, c, Options{Prefix: "{idgen:lease}:"})
	var npe *NotPersistentError
	if !errors.As(err, &npe) || npe.Addr != nodes[2].Addr {
		t.Fatalf("New with master %s not persisting: %v", nodes[2].Addr, err)
	}
}
