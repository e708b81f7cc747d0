package redissegment_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idgen/idgen/plugins/redis/redissegment"
	"github.com/idgen/idgen/plugins/redis/redistest"
	"github.com/idgen/idgen/runtime/segment"
)

// TestRedisPersistence runs the store against servers of the test's own. Without
// persistence New refuses the server with a *NotPersistentError; opted in it works,
// and a restart then moves the counter back, which an Allocator detects for its own IDs
// only. With the AOF on, New accepts the server and the counter survives a SIGKILL.
func TestRedisPersistence(t *testing.T) {
	ctx := context.Background()
	t.Run("none", func(t *testing.T) {
		srv := redistest.Start(t)
		c := srv.Client()
		s, err := redissegment.New(ctx, c, redissegment.Options{})
		var npe *redissegment.NotPersistentError
		if s != nil || !errors.As(err, &npe) || !errors.Is(err, redissegment.ErrNotPersistent) || npe.Addr != srv.Addr || !strings.HasPrefix(err.Error(), "redissegment: redis ") {
			t.Fatalf("New on a Redis without persistence = %v, %v; want a *NotPersistentError", s, err)
		}
		t.Log(err)

		s, err = redissegment.New(ctx, c, redissegment.Options{AllowNoPersistence: true})
		if err != nil {
			t.Fatal(err)
		}
		clock := newFakeClock()
		// Threshold 0.99 of 100: nothing is reserved in the background before ID 100.
		a := newT(t, s, "order", segment.Options{Step: 100, MinStep: 100, MaxStep: 100, Threshold: 0.99, Now: clock.Now})
		if ids, err := a.NextN(ctx, 99); err != nil || ids[98] != 99 {
			t.Fatalf("before the restart: %v, %v", ids, err)
		}
		srv.Restart()
		// What another process gets now: IDs this one already handed out.
		if r, err := s.Reserve(ctx, "order", 100); err != nil || r != (segment.Range{First: 1, Last: 100}) {
			t.Fatalf("Reserve after the restart = %v, %v; want the forgotten [1, 100] again", r, err)
		}
		// The Allocator itself refuses a block not above what it had, and takes the next.
		srv.Restart()
		ids, err := a.NextN(ctx, 2)
		if !errors.Is(err, segment.ErrUnavailable) || len(ids) != 1 || ids[0] != 100 {
			t.Fatalf("allocator offered [1, 100] again: %v, %v; want [100] and ErrUnavailable", ids, err)
		}
		t.Logf("allocator refusing a block it already served: %v", err)
		clock.Add(time.Second) // past Retry; the counter is at 100 after the refused block
		if id, err := a.NextInt64(ctx); err != nil || id != 101 {
			t.Fatalf("allocator after the refused block: %d, %v; want 101", id, err)
		}
	})
	t.Run("appendonly", func(t *testing.T) {
		srv := redistest.Start(t, "--appendonly", "yes")
		s, err := redissegment.New(ctx, srv.Client(), redissegment.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if r, err := s.Reserve(ctx, "order", 100); err != nil || r != (segment.Range{First: 1, Last: 100}) {
			t.Fatalf("Reserve = %v, %v", r, err)
		}
		srv.Restart()
		if r, err := s.Reserve(ctx, "order", 100); err != nil || r != (segment.Range{First: 101, Last: 200}) {
			t.Fatalf("Reserve after a restart = %v, %v; want [101, 200]", r, err)
		}
	})
}

// TestRedisCluster: on a cluster (servers of the test's own) New checks every master:
// accepted with the AOF on everywhere, refused naming the one master without it.
func TestRedisCluster(t *testing.T) {
	ctx := context.Background()
	nodes := redistest.StartCluster(t, 3, "--appendonly", "yes")
	c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{nodes[0].Addr}})
	defer c.Close()
	s, err := redissegment.New(ctx, c, redissegment.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tag := range []string{"order", "payment", "user"} { // keys in several slots
		if r, err := s.Reserve(ctx, tag, 10); err != nil || r != (segment.Range{First: 1, Last: 10}) {
			t.Fatalf("Reserve(%s) = %v, %v", tag, r, err)
		}
	}
	if err := nodes[1].Client().ConfigSet(ctx, "appendonly", "no").Err(); err != nil {
		t.Fatal(err)
	}
	_, err = redissegment.New(ctx, c, redissegment.Options{})
	var npe *redissegment.NotPersistentError
	if !errors.As(err, &npe) || npe.Addr != nodes[1].Addr {
		t.Fatalf("New with master %s not persisting: %v", nodes[1].Addr, err)
	}
}

// TestNewNilClient: New refuses a nil client instead of a Store that panics later.
func TestNewNilClient(t *testing.T) {
	if s, err := redissegment.New(context.Background(), nil, redissegment.Options{}); s != nil || err == nil {
		t.Fatalf("New(nil) = %v, %v; want an error", s, err)
	}
}
