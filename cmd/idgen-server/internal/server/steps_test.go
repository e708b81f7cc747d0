package server_test

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/redis/go-redis/v9"

	"github.com/idgen/idgen/cmd/idgen-server/internal/control"
	"github.com/idgen/idgen/cmd/idgen-server/internal/server"
	"github.com/idgen/idgen/cmd/idgen-server/internal/testserver"
	v1 "github.com/idgen/idgen/idgenclient/idgenv1"
)

// TestStepsFleetWide: on every store type, a step chosen on one instance is kept in the
// store, applied by another instance at its refresh (once: the step then adapts), and
// by an instance that starts later before its first reservation; the changes, with who
// made them, are listed by every instance.
func TestStepsFleetWide(t *testing.T) {
	suffix := strings.ToLower(rand.Text()[:8])
	cases := []struct {
		name, env, store string
		drop             func(dsn string)
	}{
		{"postgres", "IDGEN_TEST_POSTGRES_DSN",
			`{type: postgres, dsn: %q, segment_table: idgen_segment_st_` + suffix + `}`,
			func(dsn string) { dropTables("pgx", dsn, suffix) }},
		{"mysql", "IDGEN_TEST_MYSQL_DSN",
			`{type: mysql, dsn: %q, segment_table: idgen_segment_st_` + suffix + `}`,
			func(dsn string) { dropTables("mysql", dsn, suffix) }},
		{"redis", "IDGEN_TEST_REDIS_DSN",
			`{type: redis, dsn: %q, prefix: "idgen-steps-` + suffix + `:", allow_no_persistence: true}`,
			func(dsn string) { dropRedisKeys(t, dsn, "idgen-steps-"+suffix+":") }},
		{"sqlite", "", `{type: sqlite, dsn: %q}`, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dsn := server.StoreDSN(t, c.env)
			if c.drop != nil {
				t.Cleanup(func() { c.drop(dsn) })
			}
			cfg := fmt.Sprintf(`stores:
  db: `+c.store+`
tags:
  - {name: order, kind: segment, store: db, step: 100}
tag_store: db
`, dsn)
			testStepsFleetWide(t, cfg)
		})
	}
}

func testStepsFleetWide(t *testing.T, cfg string) {
	ctx := context.Background()
	a := testserver.Start(t, cfg)
	b := testserver.Start(t, cfg)
	if err := a.Admin().SetStep(ctx, "ops", "order", 0); !errors.Is(err, control.ErrBadStep) {
		t.Errorf("a step of 0: %v, want ErrBadStep", err)
	}
	if err := a.Admin().SetStep(ctx, "ops", "order", 7); err != nil {
		t.Fatal(err)
	}
	if got := step(t, a.Server, "order"); got != 7 {
		t.Fatalf("step on the instance that changed it: %d, want 7", got)
	}
	if got := step(t, b.Server, "order"); got == 7 {
		t.Fatalf("the other instance has step 7 before it refreshed")
	}
	if err := b.Admin().RefreshTags(ctx); err != nil {
		t.Fatal(err)
	}
	if got := step(t, b.Server, "order"); got != 7 {
		t.Fatalf("step on the other instance after its refresh: %d, want 7", got)
	}
	// Its next reservation is a block of 7.
	if _, err := client(b.URL, "").List(ctx, connect.NewRequest(&v1.ListRequest{Tag: "order", Count: 300})); err != nil {
		t.Fatal(err)
	}
	testserver.WaitFor(t, "a block of 7 on the other instance", 10*time.Second, func() error {
		for _, r := range tagStatus(t, b.Server, "order").Reservations {
			if r.Step == 7 {
				return nil
			}
		}
		return fmt.Errorf("reservations %v", tagStatus(t, b.Server, "order").Reservations)
	})
	// A change is applied once: the step adapts afterwards, and a refresh leaves it so.
	if err := server.SetLocalStep(b.Server, "order", 50); err != nil {
		t.Fatal(err)
	}
	for _, s := range []*testserver.Server{a, b} {
		if err := s.Admin().RefreshTags(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if got := step(t, b.Server, "order"); got != 50 {
		t.Fatalf("after a refresh the adapted step is %d, want 50 (the change applied again?)", got)
	}
	// An instance that starts later (or restarts) applies the latest change before its
	// first reservation.
	if err := b.Admin().SetStep(ctx, "ops2", "order", 9); err != nil {
		t.Fatal(err)
	}
	late := testserver.Start(t, cfg)
	if rs := tagStatus(t, late.Server, "order").Reservations; len(rs) == 0 || rs[0].Step != 9 {
		t.Fatalf("reservations of an instance started after the change: %v, want the first of 9", rs)
	}
	if err := a.Admin().RefreshTags(ctx); err != nil {
		t.Fatal(err)
	}
	if got := step(t, a.Server, "order"); got != 9 {
		t.Fatalf("step on the first instance after the second's change: %d, want 9", got)
	}
	// The changes, newest first, on every instance.
	if err := a.Admin().CreateSegmentTag(ctx, "ops", "refund", 1000, 10); err != nil {
		t.Fatal(err)
	}
	for _, s := range []*testserver.Server{a, b, late} {
		cs, err := s.Admin().Logs.Recent(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := []control.Change{
			{Who: "ops", Tag: "refund", Kind: control.ChangeCreate, Store: "db", New: 10, First: 1000},
			{Who: "ops2", Tag: "order", Kind: control.ChangeStep, Store: "db", Old: 50, New: 9},
			{Who: "ops", Tag: "order", Kind: control.ChangeStep, Store: "db", Old: 100, New: 7},
		}
		if len(cs) != len(want) {
			t.Fatalf("changes %+v, want %d", cs, len(want))
		}
		for i, w := range want {
			g := cs[i]
			if g.Who != w.Who || g.Tag != w.Tag || g.Kind != w.Kind || g.Store != w.Store || g.Old != w.Old || g.New != w.New || g.First != w.First || time.Since(g.At) > time.Minute {
				t.Errorf("change %d: %+v, want %+v", i, g, w)
			}
		}
	}
}

func tagStatus(t *testing.T, s *server.Server, name string) *v1.TagStatus {
	t.Helper()
	for _, ts := range s.Status(nil).Tags {
		if ts.Name == name {
			return ts
		}
	}
	t.Fatalf("no tag %q", name)
	return nil
}

func step(t *testing.T, s *server.Server, name string) int64 { return tagStatus(t, s, name).Step }

// dropRedisKeys deletes every key of the Redis at dsn whose name starts with prefix: the
// counters, leases, records and change log a test left in the shared server.
func dropRedisKeys(t testing.TB, dsn, prefix string) {
	opt, err := redis.ParseURL(dsn)
	if err != nil {
		t.Errorf("dropping keys %s*: %v", prefix, err)
		return
	}
	c := redis.NewClient(opt)
	defer c.Close()
	ctx := context.Background()
	var keys []string
	it := c.Scan(ctx, 0, prefix+"*", 100).Iterator()
	for it.Next(ctx) {
		keys = append(keys, it.Val())
	}
	err = it.Err()
	if err == nil && len(keys) > 0 {
		err = c.Del(ctx, keys...).Err()
	}
	if err != nil {
		t.Errorf("dropping keys %s*: %v", prefix, err)
	}
}
