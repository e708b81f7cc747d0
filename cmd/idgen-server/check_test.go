package main

import (
	"bytes"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/idgen/idgen/cmd/idgen-server/internal/config"
	"github.com/idgen/idgen/runtime/snowflake"
)

// TestCheck: check prints the configuration that continues an old system (Leaf's layout
// and last ID, its fleet's worker IDs, an auto-increment table's max(id), Leaf's segment
// rows), a whole one the server's config.Parse accepts as printed, which passes check
// -config; flags that leave the printed configuration without a store it names (no -dsn
// nor -lease-dsn for the lease) are refused with a *FlagError naming the flag; check
// -config refuses a configuration that would go backwards or overlap, saying what to
// change.
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	leafLast, err := snowflake.Leaf().Compose(snowflake.Parts{Tick: snowflake.Leaf().Tick(now.Add(-time.Second)), Worker: 300, Seq: 17})
	if err != nil {
		t.Fatal(err)
	}
	floor := leafLast.String()
	check := func(args ...string) (string, error) {
		var out, errOut bytes.Buffer
		err := runCheck(args, &out, &errOut)
		return out.String() + errOut.String(), err
	}
	write := func(name, text string) string {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}

	// Without -dsn nothing names the store the lease is on: refused, naming the flag
	// (it printed "store: old" with no store old defined).
	_, err = check("-layout", "leaf", "-floor", floor, "-workers", "0-511")
	var fe *FlagError
	if !errors.As(err, &fe) || fe.Flag != "-lease-dsn" || !strings.HasPrefix(err.Error(), "check: -lease-dsn: missing: the snowflake lease needs a store") {
		t.Fatalf("check without a store for the lease: %v, want a *FlagError naming -lease-dsn", err)
	}
	leaseDB := filepath.Join(dir, "idgen.db")
	out, err := check("-layout", "leaf", "-floor", floor, "-workers", "0-511", "-lease-dsn", leaseDB)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"  idgen: {type: sqlite, dsn: " + strconv.Quote(leaseDB) + "}\n", "  layout: leaf\n", "  floor: " + floor + "\n",
		"    store: idgen\n", "    min_worker: 512  # the old fleet has 0-511\n    max_worker: 1023\n", "  - {name: id, kind: snowflake}\n"} {
		if !strings.Contains(out, w) {
			t.Errorf("check output lacks %q:\n%s", w, out)
		}
	}
	// The printed configuration, as it is, is one the server and check accept.
	good := write("good.yaml", out)
	if _, err := config.Parse(good, []byte(out)); err != nil {
		t.Fatalf("printed configuration: %v\n%s", err, out)
	}
	if out, err := check("-config", good, "-floor", floor, "-workers", "0-511"); err != nil || !strings.Contains(out, "continues the old system") {
		t.Fatalf("check -config of the printed configuration: %v\n%s", err, out)
	}

	base := "listen: 127.0.0.1:7070\nstores:\n  local: {type: sqlite}\nsnowflake:\n  layout: %s\n  lease: {store: local%s}\ntags:\n  - {name: id, kind: snowflake}\n"
	for _, tc := range []struct {
		name, layout, lease string
		want                []string
	}{
		{"classic goes backwards", "classic", "", []string{
			"does not continue the old system:\n  snowflake.layout: snowflake: floor " + floor + " (the highest ID already issued) is not below the next ID of layout classic",
			"presets that continue above it: leaf, twitter, bwmarrin"}},
		{"the old fleet's worker IDs", "leaf", "", []string{
			"snowflake.lease: worker IDs [0, 1023] overlap the old fleet's [0, 511]: set snowflake.lease.min_worker: 512"}},
		{"a range that still overlaps", "leaf", ", min_worker: 500", []string{
			"snowflake.lease: worker IDs [500, 1023] overlap the old fleet's [0, 511]"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := write(strings.ReplaceAll(tc.name, " ", "_")+".yaml", fmt.Sprintf(base, tc.layout, tc.lease))
			out, err := check("-config", f, "-floor", floor, "-workers", "0-511")
			if err == nil {
				t.Fatalf("check accepted %s:\n%s", tc.name, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error\n%v\nlacks %q", err, w)
				}
			}
		})
	}
	if _, err := check("-layout", "classic", "-floor", floor, "-lease-dsn", leaseDB); !errors.Is(err, snowflake.ErrBelowFloor) {
		t.Errorf("check -layout classic over Leaf's IDs: %v", err)
	}
	if _, err := check("-layout", "leaf", "-workers", "0-1023", "-lease-dsn", leaseDB); err == nil || !strings.Contains(err.Error(), "no worker ID is left for idgen") {
		t.Errorf("check with the whole worker field taken: %v", err)
	}

	// From auto-increment: the table's max(id) is the floor, read by a query.
	app := filepath.Join(dir, "app.db")
	db, err := sql.Open("sqlite", app)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("CREATE TABLE orders (id INTEGER PRIMARY KEY AUTOINCREMENT); INSERT INTO orders (id) VALUES (41), (42)"); err != nil {
		t.Fatal(err)
	}
	out, err = check("-dsn", app, "-floor-query", "SELECT max(id) FROM orders")
	if err != nil || !strings.Contains(out, `  floor: {store: old, query: "SELECT max(id) FROM orders"}  # 42 now`) || !strings.Contains(out, "old: {type: sqlite") ||
		!strings.Contains(out, "    store: old\n") {
		t.Fatalf("check of an auto-increment table: %v\n%s", err, out)
	}
	if _, err := config.Parse("auto-increment", []byte(out)); err != nil {
		t.Fatalf("printed configuration: %v\n%s", err, out)
	}
	// A flag that reads the old database needs -dsn; no flag at all continues nothing.
	for _, tc := range []struct {
		args []string
		flag string
	}{
		{[]string{"-floor-query", "SELECT max(id) FROM orders"}, "-dsn"},
		{[]string{"-leaf-table", "leaf_alloc"}, "-dsn"},
		{nil, "-layout, -floor, -floor-query, -workers, -leaf-table or -tinyid-table"},
	} {
		_, err := check(tc.args...)
		if fe := (*FlagError)(nil); !errors.As(err, &fe) || fe.Flag != tc.flag {
			t.Errorf("check %q: %v, want a *FlagError naming %s", tc.args, err, tc.flag)
		}
	}
}

// TestCheckLeafTable: check lists Leaf's tags as segment tags on its rows, and refuses a
// configuration that counts one of them on idgen's own table.
func TestCheckLeafTable(t *testing.T) {
	dsn := os.Getenv("IDGEN_TEST_POSTGRES_DSN")
	if dsn == "" {
		t.Skip("IDGEN_TEST_POSTGRES_DSN is not set")
	}
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	table := "leaf_alloc_chk_" + strconv.FormatInt(time.Now().UnixNano()%1e9, 36)
	t.Cleanup(func() { db.Exec("DROP TABLE IF EXISTS " + table) })
	for _, q := range []string{
		"CREATE TABLE " + table + " (biz_tag varchar(128) NOT NULL PRIMARY KEY, max_id bigint NOT NULL DEFAULT 1, step integer NOT NULL, description varchar(256), update_time timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP)",
		"INSERT INTO " + table + " (biz_tag, max_id, step) VALUES ('orders', 7001, 1000), ('users', 1, 100)",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	var out, errOut bytes.Buffer
	if err := runCheck([]string{"-dsn", dsn, "-leaf-table", table}, &out, &errOut); err != nil {
		t.Fatal(err, errOut.String())
	}
	if w := "  - {name: orders, kind: segment, store: old, schema: leaf, table: " + table + "}  # next ID 7001\n"; !strings.Contains(out.String(), w) {
		t.Fatalf("output lacks %q:\n%s", w, out.String())
	}
	if _, err := config.Parse("leaf tags", out.Bytes()); err != nil {
		t.Fatalf("printed configuration: %v\n%s", err, out.String())
	}
	// A Leaf tag named "id", the name check gives the snowflake tag: the snowflake tag
	// takes another, and the output is still a configuration the server accepts.
	if _, err := db.Exec("INSERT INTO " + table + " (biz_tag, max_id, step) VALUES ('id', 1, 100), ('snowflake', 1, 100)"); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := runCheck([]string{"-dsn", dsn, "-leaf-table", table, "-layout", "leaf"}, &out, &errOut); err != nil {
		t.Fatal(err, errOut.String())
	}
	for _, w := range []string{"  - {name: id, kind: segment, store: old, schema: leaf, table: " + table + "}", "  - {name: snowflake_id, kind: snowflake}\n"} {
		if !strings.Contains(out.String(), w) {
			t.Fatalf("output lacks %q:\n%s", w, out.String())
		}
	}
	if _, err := config.Parse("leaf tags and a snowflake tag", out.Bytes()); err != nil {
		t.Fatalf("printed configuration: %v\n%s", err, out.String())
	}
	f := filepath.Join(t.TempDir(), "idgen.yaml")
	os.WriteFile(f, []byte("listen: 127.0.0.1:7070\nstores:\n  local: {type: sqlite}\ntags:\n  - {name: orders, kind: segment, store: local}\n"), 0o644)
	err = runCheck([]string{"-config", f, "-dsn", dsn, "-leaf-table", table}, &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), `tags[0] "orders": leaf's table `+table+` hands out this tag from 7001 on; a segment tag on another table would repeat its IDs: set kind: segment, schema: leaf`) {
		t.Fatalf("check of a tag on idgen's table: %v", err)
	}
}
