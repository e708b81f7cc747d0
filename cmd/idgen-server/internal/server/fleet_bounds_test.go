package server_test

import (
	"context"
	"database/sql"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idgen/idgen/cmd/idgen-server/internal/control"
	"github.com/idgen/idgen/cmd/idgen-server/internal/registry"
	"github.com/idgen/idgen/cmd/idgen-server/internal/testserver"
	"github.com/idgen/idgen/runtime/sqldb"
)

// putRecords writes records of instances at urls into the registry of the SQLite file.
func putRecords(t *testing.T, file string, urls ...string) {
	t.Helper()
	ctx := context.Background()
	db, err := sql.Open("sqlite", file+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rs, err := registry.NewSQL(ctx, db, sqldb.SQLite, registry.SQLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i, u := range urls {
		in := registry.Instance{ID: "planted-" + string(rune('a'+i)), URL: u, Worker: int64(900 + i), Started: time.Now()}
		if err := rs.Put(ctx, in, time.Minute); err != nil {
			t.Fatal(err)
		}
	}
}

// TestFleetPeerAnswerBounded: a registry record pointing at a peer that answers Status
// with 256 MiB costs the server at most MaxPeerStatusBytes of it: the peer's writes
// fail soon after that (the socket buffers between them aside), and the row says the
// peer answered badly.
func TestFleetPeerAnswerBounded(t *testing.T) {
	const huge = 256 << 20
	var written atomic.Int64
	done := make(chan struct{})
	var once sync.Once
	peer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer once.Do(func() { close(done) })
		w.Header().Set("Content-Type", "application/proto")
		w.WriteHeader(http.StatusOK)
		chunk := make([]byte, 64<<10)
		for written.Load() < huge {
			n, err := w.Write(chunk)
			written.Add(int64(n))
			if err != nil {
				return
			}
		}
	}))
	defer peer.Close()
	file := t.TempDir() + "/idgen.db"
	a := testserver.Start(t, fleetConfig(file, ""))
	putRecords(t, file, peer.URL)

	var row control.Peer
	for _, p := range a.Fleet(context.Background()) {
		if p.Address == peer.URL {
			row = p
		}
	}
	if row.Status != nil || row.Reason == "" {
		t.Fatalf("the peer's row: %+v, want a reason and no status", row)
	}
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("the peer is still writing a minute later")
	}
	// What the server read is at most the bound; the rest of what the peer wrote sat in
	// the two sockets' buffers (a few MiB on loopback) when the server closed.
	t.Logf("the peer wrote %d KiB of its %d MiB", written.Load()>>10, huge>>20)
	if n := written.Load(); n >= 32<<20 {
		t.Fatalf("the peer wrote %d MiB before the server hung up, want far less than 32 MiB (bound %d KiB)", n>>20, control.MaxPeerStatusBytes>>10)
	}
}

// TestFleetNoRedirects: a peer that answers Status with a redirect does not send the
// server's fleet call (its signature, a Referer) anywhere else.
func TestFleetNoRedirects(t *testing.T) {
	var elsewhere atomic.Int64
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
		http.Error(w, "no", http.StatusTeapot)
	}))
	defer target.Close()
	for _, code := range []int{http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		t.Run(http.StatusText(code), func(t *testing.T) {
			peer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, target.URL+r.URL.Path, code)
			}))
			defer peer.Close()
			file := t.TempDir() + "/idgen.db"
			a := testserver.Start(t, fleetConfig(file, ""))
			putRecords(t, file, peer.URL)
			for _, p := range a.Fleet(context.Background()) {
				if p.Address == peer.URL && (p.Status != nil || p.Reason == "") {
					t.Errorf("the redirecting peer's row: %+v", p)
				}
			}
			if n := elsewhere.Load(); n != 0 {
				t.Fatalf("the redirect's target got %d fleet calls", n)
			}
		})
	}
}
