package server_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idgen/idgen/cmd/idgen-server/internal/control"
	"github.com/idgen/idgen/cmd/idgen-server/internal/server"
	"github.com/idgen/idgen/cmd/idgen-server/internal/testserver"
)

// TestRedisChangeLogAtomic: on Redis a change is kept in the stream and the hash of
// steps together or not at all (a hash that cannot be written leaves no change listed
// and applied nowhere), and admins changing one tag at once on several instances leave
// the hash on the stream's latest step change, which every instance then applies.
func TestRedisChangeLogAtomic(t *testing.T) {
	dsn := server.StoreDSN(t, "IDGEN_TEST_REDIS_DSN")
	prefix := "idgen-atomic-" + strings.ToLower(rand.Text()[:8]) + ":"
	t.Cleanup(func() { dropRedisKeys(t, dsn, prefix) })
	cfg := fmt.Sprintf(`stores:
  db: {type: redis, dsn: %q, prefix: %q, allow_no_persistence: true}
tags:
  - {name: order, kind: segment, store: db, step: 100}
`, dsn, prefix)
	opt, err := redis.ParseURL(dsn)
	if err != nil {
		t.Fatal(err)
	}
	rc := redis.NewClient(opt)
	t.Cleanup(func() { rc.Close() })
	ctx := context.Background()
	stream, steps := prefix+"~changes", prefix+"~steps"

	var insts []*testserver.Server
	for range 3 {
		insts = append(insts, testserver.Start(t, cfg))
	}
	var wg sync.WaitGroup
	errs := make(chan error, 3*20)
	for i, s := range insts {
		for j := range 20 {
			wg.Go(func() { errs <- s.Admin().SetStep(ctx, "ops"+strconv.Itoa(i), "order", int64(1000*(i+1)+j+1)) })
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	// The stream's latest step change of the tag.
	msgs, err := rc.XRevRangeN(ctx, stream, "+", "-", 1).Result()
	if err != nil || len(msgs) != 1 {
		t.Fatalf("the stream's latest entry: %v, %v", msgs, err)
	}
	last := msgs[0]
	if n, _ := rc.XLen(ctx, stream).Result(); n != 60 {
		t.Errorf("the stream holds %d changes, want 60", n)
	}
	h, err := rc.HGet(ctx, steps, "order").Result()
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(h)
	if len(f) < 3 || f[0] != last.ID || f[2] != last.Values["new"] {
		t.Fatalf("the hash holds %q, the stream's latest change is %s %v", h, last.ID, last.Values)
	}
	want, _ := strconv.ParseInt(f[2], 10, 64)
	for i, s := range insts {
		if err := s.Admin().RefreshTags(ctx); err != nil {
			t.Fatal(err)
		}
		if got := step(t, s.Server, "order"); got != want {
			t.Errorf("instance %d applies step %d, the latest change is %d", i, got, want)
		}
	}

	// A hash that cannot be written (a key of another type): the change is refused and
	// not listed.
	if err := rc.Set(ctx, steps, "not a hash", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if err := insts[0].Admin().SetStep(ctx, "ops", "order", 77); err == nil {
		t.Fatal("a step change kept with its hash unwritable")
	}
	if n, _ := rc.XLen(ctx, stream).Result(); n != 60 {
		t.Errorf("after a refused change the stream holds %d changes, want 60", n)
	}
	cs, err := insts[0].Admin().Logs.Recent(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) == 0 || cs[0].New == 77 {
		t.Errorf("the refused change is listed: %+v", cs[:min(len(cs), 1)])
	}
}

// TestStepMaybeKept: a step change whose context ends while the store is writing it is
// reported as perhaps kept (ErrMaybeKept), not as refused: the store may have committed
// it, and then every instance applies it. A context that ended before the write is a
// plain failure.
func TestStepMaybeKept(t *testing.T) {
	dsn := server.StoreDSN(t, "IDGEN_TEST_POSTGRES_DSN")
	suffix := strings.ToLower(rand.Text()[:8])
	t.Cleanup(func() { dropTables("pgx", dsn, suffix) })
	s := testserver.Start(t, fmt.Sprintf(`stores:
  db: {type: postgres, dsn: %q, segment_table: idgen_segment_st_`+suffix+`}
tags:
  - {name: order, kind: segment, store: db, step: 100}
`, dsn))
	ctx := context.Background()
	if err := s.Admin().SetStep(ctx, "ops", "order", 5); err != nil { // the change table exists
		t.Fatal(err)
	}
	done, cancel := context.WithCancel(ctx)
	cancel()
	if err := s.Admin().SetStep(done, "ops", "order", 6); err == nil || errors.Is(err, control.ErrMaybeKept) {
		t.Errorf("a context ended before the write: %v, want a failure, not ErrMaybeKept", err)
	}
	// Another transaction locks the table: the write waits until the context ends.
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec("LOCK TABLE idgen_segment_st_" + suffix + "_changes IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	if err := s.Admin().SetStep(short, "ops", "order", 7); !errors.Is(err, control.ErrMaybeKept) {
		t.Errorf("a context ended during the write: %v, want ErrMaybeKept", err)
	}
	if got := step(t, s.Server, "order"); got != 5 {
		t.Errorf("step %d after an unconfirmed change, want 5 (applied at the refresh if kept)", got)
	}
}
