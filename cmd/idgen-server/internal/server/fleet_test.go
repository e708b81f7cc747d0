package server_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"

	"github.com/idgen/idgen/cmd/idgen-server/internal/auth"
	"github.com/idgen/idgen/cmd/idgen-server/internal/control"
	"github.com/idgen/idgen/cmd/idgen-server/internal/registry"
	"github.com/idgen/idgen/cmd/idgen-server/internal/server"
	"github.com/idgen/idgen/cmd/idgen-server/internal/testserver"
	v1 "github.com/idgen/idgen/idgenclient/idgenv1"
	"github.com/idgen/idgen/idgenclient/idgenv1/idgenv1connect"
	"github.com/idgen/idgen/runtime/sqldb"
)

// fleetConfig is a server with a lease on the SQLite file and the all-tags token.
func fleetConfig(file, extra string) string {
	return fmt.Sprintf(`stores:
  local: {type: sqlite, dsn: %q%s}
snowflake:
  lease: {store: local, ttl: 3s}
tokens: [{token: `+allToken+`}]
tags: [{name: id, kind: snowflake}]
`, file, extra)
}

// signedStatus calls Status on url with only a fleet signature.
func signedStatus(url, sig string) error {
	req := connect.NewRequest(&v1.StatusRequest{})
	req.Header().Set(auth.FleetHeader, sig)
	_, err := idgenv1connect.NewIDServiceClient(http.DefaultClient, url).Status(context.Background(), req)
	return err
}

// TestFleetSignature: Fleet sends no token to the URLs it reads from the lease store or
// peers, only a signature of the Status call for that URL; a real instance at another
// URL refuses it (a replay), accepts one for its own URL within the allowed skew, and
// never for another procedure; a peer configured by another name than the one it
// advertises is listed as refusing the signature; a record whose URL is not a base URL
// is skipped, and the page's reasons say nothing of the cause.
func TestFleetSignature(t *testing.T) {
	ctx := context.Background()
	file := t.TempDir() + "/idgen.db"
	a := testserver.Start(t, fleetConfig(file, ""))
	b := testserver.Start(t, fleetConfig(file, ""))
	_, bPort, _ := strings.Cut(b.Addr, ":")
	c := testserver.Start(t, fleetConfig(file, "")+"peers: [http://localhost:"+bPort+"]\n")
	for _, s := range []*testserver.Server{a, b, c} {
		testserver.WaitReady(t, s.URL)
	}

	var mu sync.Mutex
	var got []http.Header
	spy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Header.Clone())
		mu.Unlock()
		http.Error(w, "no", http.StatusTeapot)
	}))
	defer spy.Close()
	db, err := sql.Open("sqlite", file+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rs, err := registry.NewSQL(ctx, db, sqldb.SQLite, registry.SQLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []registry.Instance{
		{ID: "spy", URL: spy.URL, Worker: 7, Started: time.Now()},
		{ID: "bad", URL: "10.0.0.1:22", Worker: 8, Started: time.Now()},
	} {
		if err := rs.Put(ctx, in, time.Minute); err != nil {
			t.Fatal(err)
		}
	}

	fa := a.Fleet(ctx)
	var addrs []string
	for _, p := range fa {
		addrs = append(addrs, p.Address)
		if p.Address == b.URL && (p.Reason != "" || p.Status == nil) {
			t.Errorf("a real instance refused a's signed Status: %q", p.Reason)
		}
		if p.Address == spy.URL && (p.Reason != control.ReasonUnreachable || p.Status != nil) {
			t.Errorf("spy: reason %q, want %q (nothing of what it answered)", p.Reason, control.ReasonUnreachable)
		}
	}
	if !slices.Contains(addrs, spy.URL) || slices.Contains(addrs, "10.0.0.1:22") {
		t.Fatalf("a's fleet %q: want the spy, not the record without a base URL", addrs)
	}
	mu.Lock()
	if len(got) != 1 {
		t.Fatalf("the spy was called %d times, want 1", len(got))
	}
	h := got[0]
	mu.Unlock()
	if v := h.Get("Authorization"); v != "" {
		t.Fatalf("a sent Authorization %q to a URL read from the lease store", v)
	}
	sig := h.Get(auth.FleetHeader)
	if sig == "" {
		t.Fatal("no fleet signature sent")
	}
	for _, s := range []*testserver.Server{a, b} {
		if err := signedStatus(s.URL, sig); connect.CodeOf(err) != connect.CodeUnauthenticated {
			t.Errorf("the spy's signature replayed to %s: %v, want unauthenticated", s.URL, err)
		}
	}

	now := time.Now()
	if err := signedStatus(b.URL, server.FleetSignature(a.Server, b.URL, now)); err != nil {
		t.Errorf("a signature for b's URL: %v", err)
	}
	for _, at := range []time.Time{now.Add(-time.Minute), now.Add(time.Minute)} {
		if err := signedStatus(b.URL, server.FleetSignature(a.Server, b.URL, at)); connect.CodeOf(err) != connect.CodeUnauthenticated {
			t.Errorf("a signature %v off: %v, want unauthenticated", at.Sub(now), err)
		}
	}
	api := idgenv1connect.NewIDServiceClient(http.DefaultClient, b.URL)
	next := connect.NewRequest(&v1.NextRequest{Tag: "id"})
	next.Header().Set(auth.FleetHeader, server.FleetSignature(a.Server, b.URL, now))
	if _, err := api.Next(ctx, next); connect.CodeOf(err) != connect.CodeUnauthenticated {
		t.Errorf("Next with a fleet signature: %v, want unauthenticated", err)
	}
	list := connect.NewRequest(&v1.ListRequest{Tag: "id", Count: 2})
	list.Header().Set(auth.FleetHeader, server.FleetSignature(a.Server, b.URL, now))
	if _, err := api.List(ctx, list); connect.CodeOf(err) != connect.CodeUnauthenticated {
		t.Errorf("List with a fleet signature: %v, want unauthenticated", err)
	}

	// c lists b twice: found in the store by its advertised URL (answers), configured
	// under another name (refuses the signature, red).
	reasons := map[string]string{}
	for _, p := range c.Fleet(ctx) {
		reasons[p.Address] = p.Reason
	}
	if r, ok := reasons[b.URL]; !ok || r != "" {
		t.Errorf("c's row of b by its advertised URL: %q (%v)", r, ok)
	}
	if r := reasons["http://localhost:"+bPort]; r != control.ReasonRefused {
		t.Errorf("c's row of b named otherwise: reason %q, want %q", r, control.ReasonRefused)
	}
}

// TestFleetLeaseTables: two fleets on one database with lease tables of their own
// (prod, staging) keep their records in tables of their own and do not list each other.
func TestFleetLeaseTables(t *testing.T) {
	file := t.TempDir() + "/idgen.db"
	prod := testserver.Start(t, fleetConfig(file, ", lease_table: prod_lease"))
	staging := testserver.Start(t, fleetConfig(file, ", lease_table: staging_lease"))
	prod2 := testserver.Start(t, fleetConfig(file, ", lease_table: prod_lease"))
	for _, c := range []struct {
		s    *testserver.Server
		want []string
	}{
		{prod, []string{"self", prod2.URL}},
		{staging, []string{"self"}},
		{prod2, []string{"self", prod.URL}},
	} {
		var got []string
		for _, p := range c.s.Fleet(context.Background()) {
			got = append(got, p.Address)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("fleet of %s: %q, want %q", c.s.URL, got, c.want)
		}
	}
}

// TestFleetCapAndStore: a lease store holding more records than MaxFleet costs
// MaxFleet calls, the rest dropped; a store that cannot be listed is one row with a
// generic reason, nothing of what its driver said.
func TestFleetCapAndStore(t *testing.T) {
	ctx := context.Background()
	file := t.TempDir() + "/idgen.db"
	a := testserver.Start(t, fleetConfig(file, ""))
	db, err := sql.Open("sqlite", file+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rs, err := registry.NewSQL(ctx, db, sqldb.SQLite, registry.SQLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range control.MaxFleet + 6 {
		in := registry.Instance{ID: fmt.Sprintf("r%d", i), URL: fmt.Sprintf("http://127.0.0.1:1/n%03d", i), Started: time.Now()}
		if err := rs.Put(ctx, in, time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	f := a.Fleet(ctx)
	if len(f) != 1+control.MaxFleet {
		t.Fatalf("fleet of %d rows, want %d", len(f), 1+control.MaxFleet)
	}
	for _, p := range f[1:] {
		if p.Reason != control.ReasonUnreachable {
			t.Fatalf("%s: reason %q, want %q", p.Address, p.Reason, control.ReasonUnreachable)
		}
	}

	if _, err := db.Exec("DROP TABLE " + registry.DefaultTable); err != nil {
		t.Fatal(err)
	}
	f = a.Fleet(ctx)
	if len(f) != 2 || f[1].Address != "lease store local" || f[1].Reason != control.ReasonStore {
		t.Fatalf("fleet with the table gone: %+v", f)
	}
	// The table back, so that the server's shutdown removes its record without error.
	if _, err := registry.NewSQL(ctx, db, sqldb.SQLite, registry.SQLOptions{}); err != nil {
		t.Fatal(err)
	}
}
