// Package clienttest tests idgenclient against real servers (the client's own module
// cannot require the server's).
package clienttest

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/idgen/idgen"
	"github.com/idgen/idgen/cmd/idgen-server/internal/testserver"
	"github.com/idgen/idgen/idgenclient"
	"github.com/idgen/idgen/plugins/idgorm"
	"github.com/idgen/idgen/runtime/segment/segmenttest"
	"github.com/idgen/idgen/runtime/snowflake"
	"github.com/idgen/idgen/runtime/sqldb"
)

const token = "client-test-token-0123456789"

// fleet starts n servers sharing one SQLite file for the lease and the segments.
func fleet(t *testing.T, n int) []*testserver.Server {
	store := testserver.SQLite(t, "local")
	cfg := "stores:\n" + store + `
snowflake:
  layout: classic
  lease: {store: local, ttl: 2s}
tokens: [{token: ` + token + `}]
tags:
  - {name: id, kind: snowflake}
  - {name: order, kind: segment, store: local, step: 500}
`
	var out []*testserver.Server
	for range n {
		out = append(out, testserver.Start(t, cfg))
	}
	for _, s := range out {
		testserver.WaitReady(t, s.URL)
	}
	return out
}

func newClient(t *testing.T, servers []*testserver.Server, opts idgenclient.Options) *idgenclient.Client {
	for _, s := range servers {
		opts.Addresses = append(opts.Addresses, s.URL)
	}
	opts.Token = token
	if opts.CallTimeout == 0 {
		opts.CallTimeout = 3 * time.Second // a loaded test machine; failover times are the fleet test's
	}
	c, err := idgenclient.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// draw takes n IDs from src in each of g goroutines and returns them all.
func draw(t *testing.T, src idgen.Source, g, n int) []int64 {
	var mu sync.Mutex
	var all []int64
	var wg sync.WaitGroup
	errs := make(chan error, g)
	for range g {
		wg.Go(func() {
			// IDs need not increase: batches of several servers interleave.
			ids := make([]int64, 0, n)
			for range n {
				id, err := src.NextInt64(context.Background())
				if err != nil {
					errs <- err
					return
				}
				ids = append(ids, id)
			}
			mu.Lock()
			all = append(all, ids...)
			mu.Unlock()
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	return all
}

func unique(t *testing.T, ids []int64) {
	t.Helper()
	seen := make(map[int64]struct{}, len(ids))
	for _, id := range ids {
		if _, dup := seen[id]; dup {
			t.Fatalf("ID %d handed out twice", id)
		}
		seen[id] = struct{}{}
	}
}

func TestSources(t *testing.T) {
	servers := fleet(t, 3)
	c := newClient(t, servers, idgenclient.Options{})
	ctx := context.Background()
	sf, err := c.Snowflake(ctx, "id")
	if err != nil {
		t.Fatal(err)
	}
	if !sf.Layout().Equal(snowflake.Classic()) {
		t.Fatalf("layout %v", sf.Layout())
	}
	seg, err := c.Segment(ctx, "order")
	if err != nil {
		t.Fatal(err)
	}
	if !seg.Timeless() {
		t.Fatal("a segment source is not Timeless")
	}
	if _, err := c.Segment(ctx, "id"); err == nil {
		t.Fatal("a snowflake tag taken as a segment source")
	}
	if _, err := c.Snowflake(ctx, "nope"); connect.CodeOf(errors.Unwrap(err)) != connect.CodeNotFound && !errors.Is(err, err) {
		t.Fatalf("unknown tag: %v", err)
	}
	unique(t, draw(t, sf, 8, 5000))
	unique(t, draw(t, seg, 8, 5000))
	if st := seg.Stats(); st.Fetches < 2 || st.Batch <= idgenclient.DefaultMinBatch {
		t.Fatalf("the batch did not follow the rate: %+v", st)
	}
	// A business number refuses a Timeless source.
	if _, err := idgen.NextTimed(ctx, seg, snowflake.Classic()); !errors.Is(err, idgen.ErrTimeless) {
		t.Fatalf("NextTimed on a segment source: %v", err)
	}
	if _, err := idgen.NextSnowflake(ctx, sf, snowflake.Classic()); err != nil {
		t.Fatalf("NextSnowflake on a snowflake source: %v", err)
	}
}

// TestFailover: servers stop one after another while goroutines draw; the client moves
// to the others and hands out no ID twice.
func TestFailover(t *testing.T) {
	servers := fleet(t, 3)
	c := newClient(t, servers, idgenclient.Options{MaxBatch: 200})
	ctx := context.Background()
	seg, err := c.Segment(ctx, "order")
	if err != nil {
		t.Fatal(err)
	}
	sf, err := c.Snowflake(ctx, "id")
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	ids = append(ids, draw(t, seg, 4, 2000)...)
	ids = append(ids, draw(t, sf, 4, 2000)...)
	for _, s := range servers[:2] {
		sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		if err := s.Shutdown(sctx); err != nil {
			t.Fatal(err)
		}
		cancel()
		ids = append(ids, draw(t, seg, 4, 2000)...)
		ids = append(ids, draw(t, sf, 4, 2000)...)
	}
	unique(t, ids)
}

// User is a GORM model whose ID is filled by idgorm from a remote snowflake source.
type User struct {
	ID   int64 `idgen:"snowflake" gorm:"primaryKey"`
	Name string
}

// TestGORM: a model is filled with IDs from idgen-server through the client, as it is
// from a local generator. On PostgreSQL (IDGEN_TEST_POSTGRES_DSN), in a table of the
// test's own: GORM's pure-Go SQLite driver registers the driver name "sqlite" that the
// server's modernc.org/sqlite registers too, so both cannot link into one test binary.
func TestGORM(t *testing.T) {
	dsn := os.Getenv("IDGEN_TEST_POSTGRES_DSN")
	if dsn == "" {
		t.Skip("IDGEN_TEST_POSTGRES_DSN is not set")
	}
	servers := fleet(t, 1)
	c := newClient(t, servers, idgenclient.Options{})
	src, err := c.Snowflake(context.Background(), "id")
	if err != nil {
		t.Fatal(err)
	}
	db, err := gorm.Open(postgres.Open(dsn), &gorm.Config{Logger: logger.Discard})
	if err != nil {
		t.Fatal(err)
	}
	table := "idgen_server_users_" + rand.Text()[:10]
	t.Cleanup(func() { db.Migrator().DropTable(table) })
	db = db.Table(table)
	if err := db.Use(idgorm.New(idgorm.Config{Source: src})); err != nil {
		t.Fatal(err)
	}
	if err := db.Session(&gorm.Session{}).AutoMigrate(&User{}); err != nil {
		t.Fatal(err)
	}
	users := []User{{Name: "ada"}, {Name: "grace"}, {Name: "edsger"}}
	if err := db.Session(&gorm.Session{}).Create(&users).Error; err != nil {
		t.Fatal(err)
	}
	one := User{Name: "barbara"}
	if err := db.Session(&gorm.Session{}).Create(&one).Error; err != nil {
		t.Fatal(err)
	}
	all := append(users, one)
	for i, u := range all {
		if u.ID == 0 {
			t.Fatalf("user %d has no ID", i)
		}
		if _, err := src.Layout().Decode(snowflake.ID(u.ID)); err != nil {
			t.Fatalf("user %d: %v", i, err)
		}
		var got User
		if err := db.Session(&gorm.Session{}).First(&got, u.ID).Error; err != nil || got.Name != u.Name {
			t.Fatalf("user %d not stored under its ID: %v", i, err)
		}
	}
}

// TestTinyidStride: a segment tag on tinyid's table with delta 3 and remainder 2 (the
// third of three interleaved databases), served by two servers on one row. Range
// answers a caller that accepts a stride a run of many IDs with stride 3, and a caller
// that does not one ID; the Go client's Segment source hands out only IDs of remainder
// 2, none twice, from runs of many IDs across several blocks. On PostgreSQL
// (IDGEN_TEST_POSTGRES_DSN): SQLite is not a tinyid store.
func TestTinyidStride(t *testing.T) {
	dsn := os.Getenv("IDGEN_TEST_POSTGRES_DSN")
	if dsn == "" {
		t.Skip("IDGEN_TEST_POSTGRES_DSN is not set")
	}
	db, servers, table := tinyidServers(t, dsn, 2, 300)
	c := newClient(t, servers, idgenclient.Options{MinBatch: 40, MaxBatch: 1000})
	ctx := t.Context()

	var all []int64
	r, err := c.RangeStrided(ctx, "orders", 40)
	if err != nil || r.Stride != 3 || r.Count < 2 || r.Count > 40 || r.Start%3 != 2 || r.Start <= 1000 {
		t.Fatalf("RangeStrided(40) = %v, %v; want a run of IDs of remainder 2 above 1000, stride 3", r, err)
	}
	for i := range r.Count {
		all = append(all, r.Start+i*r.Stride)
	}
	// A caller that does not accept a stride would read a run as consecutive IDs: it
	// gets one ID, which it reads right.
	r, err = c.Range(ctx, "orders", 40)
	if err != nil || r.Count != 1 || r.Stride != 0 || r.Start%3 != 2 {
		t.Fatalf("Range(40) = %v, %v; want one ID of remainder 2, no stride", r, err)
	}
	all = append(all, r.Start)

	src, err := c.Segment(ctx, "orders")
	if err != nil {
		t.Fatal(err)
	}
	all = append(all, draw(t, src, 4, 500)...)
	unique(t, all)
	for _, id := range all {
		if id%3 != 2 || id <= 1000 {
			t.Fatalf("ID %d: not of remainder 2 modulo 3 above tinyid's max_id 1000", id)
		}
	}
	// 2000 IDs are 20 blocks of 100 (300 of max_id, every third): several blocks, in
	// runs of many IDs a call.
	if f := src.Stats().Fetches; f > 2000/10 {
		t.Fatalf("%d Range calls for 2000 IDs: the runs are too short", f)
	}
	var maxID int64
	if err := db.Raw("SELECT max_id FROM " + table + " WHERE biz_type = 'orders'").Scan(&maxID).Error; err != nil || maxID < 1000+20*300 {
		t.Fatalf("tinyid's max_id after 2000 IDs: %d, %v; want at least %d", maxID, err, 1000+20*300)
	}
}

// tinyidServers starts n servers serving the segment tag orders on a new tinyid table
// in PostgreSQL at dsn, whose row has max_id 1000, delta 3 and remainder 2 (the third of
// three interleaved databases), with a fixed step (step/3 IDs a block).
func tinyidServers(t testing.TB, dsn string, n int, step int64) (*gorm.DB, []*testserver.Server, string) {
	db, err := gorm.Open(postgres.Open(dsn), &gorm.Config{Logger: logger.Discard})
	if err != nil {
		t.Fatal(err)
	}
	table := "tiny_id_info_client_" + strings.ToLower(rand.Text()[:10])
	t.Cleanup(func() { db.Exec("DROP TABLE IF EXISTS " + table) })
	for _, q := range []string{
		segmenttest.TinyidDDL(sqldb.Postgres, table),
		"INSERT INTO " + table + " (biz_type, begin_id, max_id, step, delta, remainder) VALUES ('orders', 1, 1000, 300, 3, 2)",
	} {
		if err := db.Exec(q).Error; err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	cfg := fmt.Sprintf(`stores:
  db: {type: postgres, dsn: %q}
tokens: [{token: %s}]
tags:
  - {name: orders, kind: segment, store: db, schema: tinyid, table: %s, step: %d, min_step: %[4]d, max_step: %[4]d}
`, dsn, token, table, step)
	var servers []*testserver.Server
	for range n {
		s := testserver.Start(t, cfg)
		testserver.WaitReady(t, s.URL)
		servers = append(servers, s)
	}
	return db, servers, table
}

// BenchmarkTinyidSegment: the Go client's Segment source on a tinyid tag with delta 3
// (tinyidServers, one server, blocks of 10,000 IDs): each op is one ID. With runs of one
// ID a Range call (before issue 37) it is one round trip an ID.
func BenchmarkTinyidSegment(b *testing.B) {
	dsn := os.Getenv("IDGEN_TEST_POSTGRES_DSN")
	if dsn == "" {
		b.Skip("IDGEN_TEST_POSTGRES_DSN is not set")
	}
	_, servers, _ := tinyidServers(b, dsn, 1, 30000)
	var opts idgenclient.Options
	for _, s := range servers {
		opts.Addresses = append(opts.Addresses, s.URL)
	}
	opts.Token = token
	c, err := idgenclient.New(opts)
	if err != nil {
		b.Fatal(err)
	}
	src, err := c.Segment(b.Context(), "orders")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := src.NextInt64(b.Context()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "IDs/s")
	b.ReportMetric(float64(src.Stats().Fetches), "fetches")
}
