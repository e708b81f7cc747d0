package idotel_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/idgen/idgen/plugins/idotel"
	"github.com/idgen/idgen/runtime/lease"
	"github.com/idgen/idgen/runtime/snowflake"
	"github.com/idgen/idgen/runtime/sqldb"
)

// openSQLite opens a database file of the test's own, as the SQL stores want SQLite.
func openSQLite(t testing.TB) *sql.DB {
	t.Helper()
	dsn := "file:" + filepath.Join(t.TempDir(), "idgen.db") + "?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestLease holds a lease on SQLite (3 s TTL: renewals every second, long enough that
// none times out on a loaded machine), has another holder take its worker ID over in the
// table (the next renewal finds it lost), lets it claim another and closes it: one loss,
// two acquisitions, one release, nothing held at the end.
func TestLease(t *testing.T) {
	m := newMeter(t)
	obs, err := idotel.NewLease(m.opts)
	if err != nil {
		t.Fatal(err)
	}
	events := make(chan lease.Event, 100)
	db := openSQLite(t)
	b, err := lease.NewSQL(db, sqldb.SQLite, lease.SQLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	l, err := lease.Acquire(ctx, b, lease.Config{Layout: snowflake.Classic(), TTL: 3 * time.Second,
		OnEvent: func(e lease.Event) {
			obs.OnEvent(e)
			events <- e
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close(ctx)
	wait := func(k lease.EventKind) lease.Event {
		t.Helper()
		timeout := time.After(10 * time.Second)
		for {
			select {
			case e := <-events:
				if e.Kind == k {
					return e
				}
			case <-timeout:
				t.Fatalf("no %v event within 10 s", k)
			}
		}
	}
	if e := wait(lease.Acquired); e.Worker != 0 {
		t.Fatalf("acquired worker %d, want 0", e.Worker)
	}
	if got := m.collect(t).sum(t, "idgen.lease.held"); got != 1 {
		t.Errorf("while held: idgen.lease.held = %d, want 1", got)
	}
	// Another holder takes worker 0 over.
	if _, err := db.Exec("UPDATE idgen_lease SET holder = 'thief', expires_ms = expires_ms + 3600000 WHERE worker_id = 0"); err != nil {
		t.Fatal(err)
	}
	wait(lease.Lost)
	if e := wait(lease.Acquired); e.Worker != 1 {
		t.Fatalf("reacquired worker %d, want 1", e.Worker)
	}
	if err := l.Close(ctx); err != nil {
		t.Fatal(err)
	}

	c := m.collect(t)
	c.unit(t, "idgen.lease.events", "{event}")
	// Failed claims and renewals are left out: a loaded machine may time one out.
	for kind, want := range map[string]int64{"acquired": 2, "lost": 1, "released": 1} {
		if got := c.sum(t, "idgen.lease.events", idotel.LeaseEventKey.String(kind)); got != want {
			t.Errorf("idgen.lease.events{%s} = %d, want %d", kind, got, want)
		}
	}
	c.unit(t, "idgen.lease.held", "{lease}")
	if got := c.sum(t, "idgen.lease.held"); got != 0 {
		t.Errorf("after the release: idgen.lease.held = %d, want 0", got)
	}
	c.unit(t, "idgen.lease.acquire.duration", "s")
	if cnt, sum := c.hist(t, "idgen.lease.acquire.duration"); cnt != 2 || sum <= 0 {
		t.Errorf("idgen.lease.acquire.duration: %d claims taking %v s, want 2 taking some time", cnt, sum)
	}
	c.unit(t, "idgen.lease.renew.duration", "s")
	renewed := c.sum(t, "idgen.lease.events", idotel.LeaseEventKey.String("renewed"))
	if cnt, _ := c.hist(t, "idgen.lease.renew.duration", idotel.LeaseEventKey.String("lost")); cnt != 1 {
		t.Errorf("idgen.lease.renew.duration{lost}: %d renewals, want 1", cnt)
	}
	if cnt, _ := c.hist(t, "idgen.lease.renew.duration", idotel.LeaseEventKey.String("renewed")); int64(cnt) != renewed {
		t.Errorf("idgen.lease.renew.duration{renewed}: %d renewals, want %d (the renewed events)", cnt, renewed)
	}
}
