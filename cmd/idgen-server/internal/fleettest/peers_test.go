package fleettest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"

	"github.com/idgen/idgen/cmd/idgen-server/internal/testserver"
	"github.com/idgen/idgen/idgenclient"
	"github.com/idgen/idgen/runtime/segment/segmenttest"
	"github.com/idgen/idgen/runtime/sqldb"
)

// peerCounts collects the IDs of one peer table from both sides and wakes the test on
// every batch, so that it waits on counts, not durations.
type peerCounts struct {
	mu      sync.Mutex
	seen    map[int64]string
	n       map[string]int // by side: "peer", "idgen"
	dups    []string
	changed chan struct{}
}

func newPeerCounts() *peerCounts {
	return &peerCounts{seen: map[int64]string{}, n: map[string]int{}, changed: make(chan struct{}, 1)}
}

func (c *peerCounts) add(side string, ids ...int64) {
	c.mu.Lock()
	for _, id := range ids {
		if prev, ok := c.seen[id]; ok && len(c.dups) < 10 {
			c.dups = append(c.dups, fmt.Sprintf("%d by %s and %s", id, prev, side))
		} else if ok {
			c.dups = append(c.dups, "")
		}
		c.seen[id] = side
		c.n[side]++
	}
	c.mu.Unlock()
	select {
	case c.changed <- struct{}{}:
	default:
	}
}

// ahead reports whether the peer side has handed out more than lead IDs beyond idgen's:
// the old service's statements are quicker than three servers behind a client, and
// without this it would take most of the run's IDs.
func (c *peerCounts) ahead(lead int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n["peer"] > c.n["idgen"]+lead
}

func (c *peerCounts) count(side string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[side]
}

func (c *peerCounts) atLeast(n int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n["peer"] >= n && c.n["idgen"] >= n
}

// waitAll returns when every side of every table has handed out n IDs, or fails t after
// a minute.
func waitAll(t *testing.T, what string, n int, tables ...*peerCounts) {
	t.Helper()
	deadline := time.After(time.Minute)
	for _, c := range tables {
		for !c.atLeast(n) {
			select {
			case <-c.changed:
			case <-deadline:
				t.Fatalf("%s: after a minute, not %d IDs on each side: %v", what, n, c.n)
			}
		}
	}
}

// TestFleetPeerTables: Leaf's and tinyid's own block allocation (their published SQL,
// segmenttest.LeafBlock and TinyidBlock) and three idgen-server processes serving
// segment tags with schema leaf and schema tinyid, on the same rows at once, on
// PostgreSQL and on MySQL; the Go client draws from the three servers under load and one
// server is SIGKILLed once a first batch of each side was seen. No ID is handed out
// twice over both sides; tinyid's remainder is kept by both.
func TestFleetPeerTables(t *testing.T) {
	needFleet(t)
	dbs := []struct {
		name, driver, env string
		dialect           sqldb.Dialect
	}{
		{"postgres", "pgx", "IDGEN_TEST_POSTGRES_DSN", sqldb.Postgres},
		{"mysql", "mysql", "IDGEN_TEST_MYSQL_DSN", sqldb.MySQL},
	}
	for _, d := range dbs {
		t.Run(d.name, func(t *testing.T) {
			dsn := os.Getenv(d.env)
			if dsn == "" {
				t.Skip(d.env + " is not set")
			}
			peerTables(t, d.name, d.driver, dsn, d.dialect)
		})
	}
}

func peerTables(t *testing.T, store, driver, dsn string, dialect sqldb.Dialect) {
	const (
		first = 1000 // IDs of each side seen before the kill
		total = 4000 // IDs of each side at the end
	)
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	suffix := strings.ToLower(rand.Text()[:8])
	leaf, tiny := "leaf_alloc_fleet_"+suffix, "tiny_id_info_fleet_"+suffix
	t.Cleanup(func() {
		db.Exec("DROP TABLE IF EXISTS " + leaf)
		db.Exec("DROP TABLE IF EXISTS " + tiny)
	})
	for _, q := range []string{
		segmenttest.LeafDDL(dialect, leaf),
		"INSERT INTO " + leaf + " (biz_tag, max_id, step, description) VALUES ('leaf', 1001, 100, 'the row Leaf and the tag leaf share')",
		segmenttest.TinyidDDL(dialect, tiny),
		// The second of two interleaved tinyid databases: odd IDs only.
		"INSERT INTO " + tiny + " (biz_type, begin_id, max_id, step, delta, remainder) VALUES ('tinyid', 1, 1000, 200, 2, 1)",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}

	var urls []string
	var servers []*proc
	for i := range 3 {
		port := testserver.FreePort(t)
		cfg := fmt.Sprintf(`listen: 127.0.0.1:%d
drain: 1s
tokens: [{token: %s}]
stores:
  db: {type: %s, dsn: %q}
tags:
  - {name: leaf, kind: segment, store: db, schema: leaf, table: %s, step: 100, min_step: 100, max_step: 100}
  - {name: tinyid, kind: segment, store: db, schema: tinyid, table: %s, step: 200, min_step: 200, max_step: 200}
`, port, token, store, dsn, leaf, tiny)
		servers = append(servers, startServer(t, fmt.Sprintf("%s-server%d", store, i), cfg))
		urls = append(urls, fmt.Sprintf("http://127.0.0.1:%d", port))
	}
	for _, u := range urls {
		testserver.WaitReady(t, u)
	}

	sides := map[string]*peerCounts{"leaf": newPeerCounts(), "tinyid": newPeerCounts()}
	client, err := idgenclient.New(idgenclient.Options{Addresses: urls, Token: token, MaxBatch: 100})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	stop, killed := make(chan struct{}), make(chan struct{})
	// done: a side stops drawing once the kill is behind it and it has handed out total.
	done := func(c *peerCounts, side string) bool {
		select {
		case <-stop:
			return true
		case <-killed:
			return c.count(side) >= total
		default:
			return false
		}
	}
	var wg sync.WaitGroup
	var errMu sync.Mutex
	var peerErr error
	clientErrs := map[string]int{}
	for _, schema := range []string{"leaf", "tinyid"} {
		c := sides[schema]
		src, err := client.Segment(ctx, schema)
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			// The old service: Leaf's or tinyid's block statements, a block at a time.
			wg.Go(func() {
				for !done(c, "peer") {
					if c.ahead(500) && !done(c, "idgen") {
						time.Sleep(time.Millisecond) // let idgen's side catch up
						continue
					}
					var ids []int64
					var err error
					if schema == "leaf" {
						ids, err = segmenttest.LeafBlock(ctx, db, dialect, leaf, schema)
					} else {
						ids, err = segmenttest.TinyidBlock(ctx, db, dialect, tiny, schema)
					}
					if err != nil {
						errMu.Lock()
						peerErr = err
						errMu.Unlock()
						return
					}
					c.add("peer", ids...)
				}
			})
			// idgen's side: the Go client drawing from the three servers.
			wg.Go(func() {
				buf := make([]int64, 0, 100)
				defer func() { c.add("idgen", buf...) }()
				for !done(c, "idgen") {
					cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
					id, err := src.NextInt64(cctx)
					cancel()
					if err != nil {
						errMu.Lock()
						clientErrs[schema]++
						errMu.Unlock()
						time.Sleep(10 * time.Millisecond) // back off: the fleet fails over
						continue
					}
					if buf = append(buf, id); len(buf) == cap(buf) {
						c.add("idgen", buf...)
						buf = buf[:0]
					}
				}
			})
		}
	}
	stopped := false
	end := func() {
		if !stopped {
			stopped = true
			close(stop)
			wg.Wait()
		}
	}
	defer end()

	waitAll(t, "before the kill", first, sides["leaf"], sides["tinyid"])
	if err := servers[0].signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	close(killed)
	waitAll(t, "after the kill", total, sides["leaf"], sides["tinyid"])
	end()
	if peerErr != nil {
		t.Fatalf("the old service's allocation: %v", peerErr)
	}

	for _, schema := range []string{"leaf", "tinyid"} {
		c := sides[schema]
		if len(c.dups) > 0 {
			t.Errorf("%s %s: %d duplicate IDs, first %s", store, schema, len(c.dups), c.dups[0])
		}
		if schema == "tinyid" {
			for id, side := range c.seen {
				if id%2 != 1 {
					t.Errorf("%s tinyid: %s handed out %d, not of remainder 1 modulo delta 2", store, side, id)
					break
				}
			}
		}
		for id, side := range c.seen {
			if id < 1001 {
				t.Errorf("%s %s: %s handed out %d, below the row's max_id 1001 at start", store, schema, side, id)
				break
			}
		}
		t.Logf("%s %s (%s): peer side %d IDs, idgen side %d IDs (3 servers, 1 SIGKILLed), %d duplicates; %d client calls failed over the kill",
			store, schema, map[string]string{"leaf": leaf, "tinyid": tiny}[schema], c.n["peer"], c.n["idgen"], len(c.dups), clientErrs[schema])
	}
}
