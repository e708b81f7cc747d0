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
