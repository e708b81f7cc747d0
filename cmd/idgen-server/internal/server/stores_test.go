package server_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"connectrpc.com/connect"

	"github.com/idgen/idgen/cmd/idgen-server/internal/server"
	"github.com/idgen/idgen/cmd/idgen-server/internal/testserver"
	v1 "github.com/idgen/idgen/idgenclient/idgenv1"
)

// TestStores: every store type leases the worker ID, within min_worker 600 up (a range
// beside an old fleet's, which Redis and etcd were refused before issue 37), and holds the
// segments (etcd: leases only), configured as a user would (the shared servers of
// IDGEN_TEST_*; tables and keys of the test's own); two servers on one store find each
// other through it.
func TestStores(t *testing.T) {
	suffix := strings.ToLower(rand.Text()[:8])
	cases := []struct {
		name, env, store string
		drop             func(dsn string)
	}{
		{"postgres", "IDGEN_TEST_POSTGRES_DSN",
			`{type: postgres, dsn: %q, lease_table: idgen_lease_st_` + suffix + `, segment_table: idgen_segment_st_` + suffix + `, server_table: idgen_servers_st_` + suffix + `}`,
			func(dsn string) { dropTables("pgx", dsn, suffix) }},
		{"mysql", "IDGEN_TEST_MYSQL_DSN",
			`{type: mysql, dsn: %q, lease_table: idgen_lease_st_` + suffix + `, segment_table: idgen_segment_st_` + suffix + `, server_table: idgen_servers_st_` + suffix + `}`,
			func(dsn string) { dropTables("mysql", dsn, suffix) }},
		// The shared Redis keeps nothing on disk: the test opts out of the check.
		{"redis", "IDGEN_TEST_REDIS_DSN",
			`{type: redis, dsn: %q, prefix: "idgen-st-` + suffix + `:", allow_no_persistence: true}`,
			func(dsn string) { dropRedisKeys(t, dsn, "idgen-st-"+suffix+":") }},
		{"sqlite", "", `{type: sqlite, dsn: %q}`, nil},
		{"etcd", "IDGEN_TEST_ETCD_ENDPOINTS", `{type: etcd, endpoints: [%s], prefix: "idgen-st-` + suffix + `/"}`, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dsn := server.StoreDSN(t, c.env)
			if c.drop != nil {
				t.Cleanup(func() { c.drop(dsn) })
			}
			tags := []string{"id", "order"}
			tagsYAML := "  - {name: id, kind: snowflake}\n  - {name: order, kind: segment, store: db, step: 10}\n"
			if c.name == "etcd" {
				tags, tagsYAML = tags[:1], "  - {name: id, kind: snowflake}\n"
			}
			cfg := fmt.Sprintf("stores:\n  db: "+c.store+"\nsnowflake:\n  lease: {store: db, ttl: 3s, min_worker: 600}\ntags:\n"+tagsYAML, dsn)
			s := testserver.Start(t, cfg)
			other := testserver.Start(t, cfg)
			testserver.WaitReady(t, s.URL)
			cl := client(s.URL, "")
			for _, tag := range tags {
				r, err := cl.List(context.Background(), connect.NewRequest(&v1.ListRequest{Tag: tag, Count: 25}))
				if err != nil || len(r.Msg.Ids) != 25 {
					t.Fatalf("%s: %v %v", tag, r, err)
				}
			}
			st := s.Status(nil)
			if st.Lease.Worker < 600 || !st.Ready {
				t.Fatalf("status %v", st)
			}
			f := s.Fleet(context.Background())
			if len(f) != 2 || f[1].Address != other.URL || !f[1].Registered || f[1].Reason != "" || f[1].Status.Lease.Worker == st.Lease.Worker || f[1].Status.Lease.Worker < 600 {
				t.Fatalf("fleet %+v, want this server and %s with another worker ID, from 600 up", f, other.URL)
			}
		})
	}
}

func dropTables(driver, dsn, suffix string) {
	db, err := sql.Open(driver, dsn)
	if err != nil {
		return
	}
	defer db.Close()
	db.Exec("DROP TABLE IF EXISTS idgen_lease_st_" + suffix)
	db.Exec("DROP TABLE IF EXISTS idgen_segment_st_" + suffix)
	db.Exec("DROP TABLE IF EXISTS idgen_segment_st_" + suffix + "_changes")
	db.Exec("DROP TABLE IF EXISTS idgen_servers_st_" + suffix)
}
