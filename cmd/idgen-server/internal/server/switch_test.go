package server_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/idgen/idgen/cmd/idgen-server/internal/config"
	"github.com/idgen/idgen/cmd/idgen-server/internal/server"
	"github.com/idgen/idgen/cmd/idgen-server/internal/testserver"
	"github.com/idgen/idgen/runtime/segment"
	"github.com/idgen/idgen/runtime/snowflake"
)

// TestSwitchFloors: a server continuing another system refuses to start when its next
// snowflake ID, or a segment tag's first block, would not be above the highest ID
// already issued (given as a number or found by a query of the user's table), and
// starts above it otherwise.
func TestSwitchFloors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "app.db")
	db, err := sql.Open("sqlite", file)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// The orders the old service numbered, up to 5000.
	if _, err := db.Exec("CREATE TABLE orders (id INTEGER PRIMARY KEY); INSERT INTO orders (id) VALUES (1), (4999), (5000)"); err != nil {
		t.Fatal(err)
	}
	// The last ID Leaf issued, a second ago on worker 1023.
	now := time.Now()
	leafFloor, err := snowflake.Leaf().Compose(snowflake.Parts{Tick: snowflake.Leaf().Tick(now.Add(-time.Second)), Worker: 1023, Seq: 4095})
	if err != nil {
		t.Fatal(err)
	}
	yaml := func(layout, floor string) string {
		return fmt.Sprintf(`listen: 127.0.0.1:0
stores:
  app: {type: sqlite, dsn: %q}
snowflake:
  layout: %s
  floor: %s
  lease: {worker: 3}
tags:
  - {name: id, kind: snowflake}
  - name: order
    kind: segment
    store: app
    floor: {store: app, query: "SELECT max(id) FROM orders"}
`, file, layout, floor)
	}
	start := func(text string) (*server.Server, error) {
		cfg, err := config.Parse("switch.yaml", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		return server.New(ctx, cfg, discard())
	}

	// The classic layout counts from 2025: its IDs are about 8 times smaller than Leaf's.
	_, err = start(yaml("classic", leafFloor.String()))
	if !errors.Is(err, snowflake.ErrBelowFloor) || !strings.Contains(err.Error(), "server: snowflake.layout: snowflake: floor "+leafFloor.String()+
		" (the highest ID already issued) is not below the next ID of layout classic") || !strings.Contains(err.Error(), "presets that continue above it: leaf, twitter, bwmarrin") {
		t.Fatalf("classic over Leaf's IDs: %v", err)
	}

	// Leaf's layout continues; the segment tag starts at 1, below the orders' 5000.
	_, err = start(yaml("leaf", leafFloor.String()))
	if !errors.Is(err, segment.ErrBelowFloor) || !strings.Contains(err.Error(), `server: tag "order": segment: tag "order": the store's block [1, `) ||
		!strings.Contains(err.Error(), "does not start above the floor 5000") {
		t.Fatalf("segment tag over 5000 orders: %v", err)
	}

	// Moved above the floor, the tag starts; every ID is above both floors.
	if _, err := db.Exec("UPDATE idgen_segment SET max_id = 5000 WHERE tag = 'order'"); err != nil {
		t.Fatal(err)
	}
	s := testserver.Start(t, strings.Replace(yaml("leaf", leafFloor.String()), "listen: 127.0.0.1:0\n", "", 1))
	for path, floor := range map[string]int64{"/api/snowflake/get/id": int64(leafFloor), "/api/segment/get/order": 5000} {
		res, err := http.Get(s.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		id, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err != nil || id <= floor {
			t.Fatalf("%s = %q, %v; want an ID above %d", path, b, err, floor)
		}
	}
}

// TestSwitchLeafTable: a segment tag with schema leaf takes its blocks from Leaf's own
// row beside Leaf, whose next block (Leaf's own UPDATE) comes after the server's; a row
// whose max_id (Leaf's next ID) is at the tag's floor stops it, saying to move max_id to
// floor+1; a leaf_alloc without Leaf's columns stops the server at start, naming the
// column.
func TestSwitchLeafTable(t *testing.T) {
	dsn := server.StoreDSN(t, "IDGEN_TEST_POSTGRES_DSN")
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	table := "leaf_alloc_srv_" + strconv.FormatInt(time.Now().UnixNano()%1e9, 36)
	t.Cleanup(func() { db.Exec("DROP TABLE IF EXISTS " + table) })
	for _, q := range []string{
		"CREATE TABLE " + table + " (biz_tag varchar(128) NOT NULL PRIMARY KEY, max_id bigint NOT NULL DEFAULT 1, step integer NOT NULL, description varchar(256), update_time timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP)",
		"INSERT INTO " + table + " (biz_tag, max_id, step) VALUES ('orders', 7001, 1000)",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	text := fmt.Sprintf(`stores:
  db: {type: postgres, dsn: %q}
tags:
  - {name: orders, kind: segment, store: db, schema: leaf, table: %s, step: 100, max_step: 100}
`, dsn, table)
	s := testserver.Start(t, text)
	res, err := http.Get(s.URL + "/api/segment/get/orders")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	// Leaf's max_id 7001 is its next ID: the server's first block is 7001 to 7100, the ID
	// taken at start dropped.
	if id, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err != nil || id < 7001 || id > 7100 {
		t.Fatalf("first ID %q, want in 7001..7100", b)
	}
	var maxID int64
	if err := db.QueryRow("SELECT max_id FROM " + table + " WHERE biz_tag = 'orders'").Scan(&maxID); err != nil || maxID < 7101 {
		t.Fatalf("Leaf's max_id after the server's block: %d, %v", maxID, err)
	}

	// Leaf's max_id is its next ID: a row at the floor would hand the floor out again,
	// and the server says to move it to floor+1.
	if _, err := db.Exec("INSERT INTO " + table + " (biz_tag, max_id, step) VALUES ('refunds', 9000, 100)"); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Parse("leaf.yaml", []byte(fmt.Sprintf(`listen: 127.0.0.1:0
stores:
  db: {type: postgres, dsn: %q}
tags:
  - {name: refunds, kind: segment, store: db, schema: leaf, table: %s, step: 100, max_step: 100, floor: 9000}
`, dsn, table)))
	if err != nil {
		t.Fatal(err)
	}
	_, err = server.New(context.Background(), cfg, discard())
	if !errors.Is(err, segment.ErrBelowFloor) || !strings.Contains(err.Error(), `server: tag "refunds": segment: tag "refunds": the store's block [9000, 9099] does not start above the floor 9000 (the highest ID already issued): `+
		"move the tag's counter (max_id, the next ID the table hands out) up to at least 9001, never down") {
		t.Fatalf("server on a leaf_alloc row at the floor: %v", err)
	}

	if _, err := db.Exec("ALTER TABLE " + table + " DROP COLUMN description"); err != nil {
		t.Fatal(err)
	}
	cfg, err = config.Parse("leaf.yaml", []byte("listen: 127.0.0.1:0\n"+text))
	if err != nil {
		t.Fatal(err)
	}
	_, err = server.New(context.Background(), cfg, discard())
	if !errors.Is(err, segment.ErrMissingColumn) || !strings.Contains(err.Error(), `server: tag "orders": segment: table `+table+` has no column "description", which leaf's schema has`) {
		t.Fatalf("server on a leaf_alloc without description: %v", err)
	}
}
