package console_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/idgen/idgen/cmd/idgen-server/internal/testserver"
)

// alert returns the text of a page's alert (p.Error), "" without one.
func alert(page string) string {
	m := regexp.MustCompile(`(?s)<p class="problem" role="alert">(.*?)</p>`).FindStringSubmatch(page)
	if m == nil {
		return ""
	}
	return html.UnescapeString(m[1])
}

// changeList returns the text of a Tags page's list of changes.
func changeList(page string) string {
	i := strings.Index(page, `<ul class="changes">`)
	if i < 0 {
		return ""
	}
	j := strings.Index(page[i:], "</ul>")
	return html.UnescapeString(page[i : i+j])
}

// TestStoreDown: when a store does not answer, the Tags page and the answers to the
// admin's forms say so in a sentence of their own and never show the store's address,
// the change log's name or the driver's message (those go to the log); a refusal the
// admin can act on (a bad step, a bad name) is still shown as it is.
func TestStoreDown(t *testing.T) {
	port := testserver.FreePort(t) // nothing listens there
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	s := testserver.Start(t, fmt.Sprintf(`stores:
  local: {type: sqlite, dsn: %q}
  down: {type: postgres, dsn: "postgres://postgres@%s/test?sslmode=disable&connect_timeout=1"}
tokens:
  - {name: ops, token: %s, admin: true}
tags:
  - {name: invoice, kind: segment, store: local, step: 1000}
  - {name: downed, kind: segment, store: down, step: 10}
tag_store: local
`, t.TempDir()+"/idgen.db", addr, adminToken))
	leaks := []string{addr, fmt.Sprint(port), "dial", "refused", "idgen_segment_changes", "pgx", "postgres"}
	check := func(what, page, want string) {
		t.Helper()
		got := alert(page)
		if got != want {
			t.Errorf("%s: the page says %q, want %q", what, got, want)
		}
		for _, l := range leaks {
			if strings.Contains(got, l) || strings.Contains(changeList(page), l) {
				t.Errorf("%s: the page shows %q:\n%s", what, l, got)
			}
		}
	}
	auth := []string{"Authorization", "Bearer " + adminToken}
	res, page := get(t, http.DefaultClient, s.URL+"/tags", auth...)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("tags: %d", res.StatusCode)
	}
	check("the Tags page", page, "Some changes could not be read: a store did not answer. The cause is in the server's log.")

	form := func(path string, f url.Values) string {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, s.URL+path, strings.NewReader(f.Encode()))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Authorization", auth[1])
		res, page := do(t, http.DefaultClient, req)
		if res.StatusCode != http.StatusUnprocessableEntity {
			t.Errorf("POST %s %v: %d, want 422", path, f, res.StatusCode)
		}
		return page
	}
	page = form("/tags/step", url.Values{"tag": {"downed"}, "step": {"5"}, "confirm": {"yes"}})
	check("a step change on the store that is down", page, "Step not changed: its store could not keep the change. The cause is in the server's log.")
	page = form("/tags/step", url.Values{"tag": {"invoice"}, "step": {"0"}, "confirm": {"yes"}})
	check("a step of 0", page, "Step not changed: want a step from 1 to 1000000000: 0")
	page = form("/tags/create", url.Values{"name": {"Bad Name!"}, "start": {"1"}, "step": {"10"}, "confirm": {"yes"}})
	if got := alert(page); !strings.HasPrefix(got, "Not created: invalid tag name: ") {
		t.Errorf("a bad name: the page says %q", got)
	}
	page = form("/tags/create", url.Values{"name": {"refund"}, "start": {"0"}, "step": {"10"}, "confirm": {"yes"}})
	check("a start of 0", page, "Not created: invalid start 0: want a first ID from 1 to 4611686018427387904")

	// The downed tag's failed reservations: the Tags table and the API's Status say that
	// the store failed, never how.
	req, err := http.NewRequest(http.MethodPost, s.URL+"/idgen.v1.IDService/Next", strings.NewReader(`{"tag":"downed"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", auth[1])
	if res, body := do(t, http.DefaultClient, req); res.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("Next from a store that is down: %d %s", res.StatusCode, body)
	}
	testserver.WaitFor(t, "the failed reservation in Status", 10*time.Second, func() error {
		for _, ts := range s.Status(nil).Tags {
			if ts.Name == "downed" && len(ts.Reservations) > 0 && ts.Reservations[len(ts.Reservations)-1].Error != "" {
				return nil
			}
		}
		return errors.New("no failed reservation yet")
	})
	_, page = get(t, http.DefaultClient, s.URL+"/tags", auth...)
	status, err := protojson.Marshal(s.Status(nil))

	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{addr, fmt.Sprint(port), "dial", "refused", "pgx"} {
		if strings.Contains(page, l) {
			t.Errorf("the Tags page after a failed reservation shows %q", l)
		}
		if strings.Contains(string(status), l) {
			t.Errorf("Status after a failed reservation shows %q: %s", l, status)
		}
	}
	if !strings.Contains(page, "the store call failed (the cause is in the server") && !strings.Contains(page, "the store did not answer in time") {
		t.Errorf("the Tags page does not say the reservation failed")
	}
}

// TestCreateStoreDown: a tag store that stops answering after the start (a Redis behind
// a proxy that closes): creating a tag says so without the store's address or the
// driver's message.
func TestCreateStoreDown(t *testing.T) {
	dsn := os.Getenv("IDGEN_TEST_REDIS_DSN")
	if dsn == "" {
		t.Skip("IDGEN_TEST_REDIS_DSN is not set")
	}
	opt, err := redis.ParseURL(dsn)
	if err != nil {
		t.Fatal(err)
	}
	p := startProxy(t, opt.Addr)
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.Host = p.addr
	prefix := "idgen-console-down-" + strings.ToLower(rand.Text()[:8]) + ":"
	t.Cleanup(func() { dropKeys(t, opt, prefix) })
	s := testserver.Start(t, fmt.Sprintf(`stores:
  shared: {type: redis, dsn: %q, prefix: %q, allow_no_persistence: true}
tokens:
  - {name: ops, token: %s, admin: true}
tags:
  - {name: invoice, kind: segment, store: shared, step: 1000}
tag_store: shared
`, u.String(), prefix, adminToken))
	p.stop()
	req, err := http.NewRequest(http.MethodPost, s.URL+"/tags/create", strings.NewReader(url.Values{"name": {"refund"}, "start": {"1"}, "step": {"10"}, "confirm": {"yes"}}.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Authorization", "Bearer "+adminToken)
	res, page := do(t, http.DefaultClient, req)
	if res.StatusCode != http.StatusUnprocessableEntity {
		t.Errorf("create: %d, want 422", res.StatusCode)
	}
	if got, want := alert(page), "Not created: the tag store could not create the tag. The cause is in the server's log."; got != want {
		t.Errorf("the page says %q, want %q", got, want)
	}
	for _, l := range []string{p.addr, "dial", "refused", "~changes", "redis"} {
		if strings.Contains(alert(page), l) || strings.Contains(changeList(page), l) {
			t.Errorf("the page shows %q", l)
		}
	}
}

// proxy forwards TCP connections from addr to a server until stop, which closes its
// listener and every connection: the server then looks down to its clients.
type proxy struct {
	addr  string
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
	wg    sync.WaitGroup
}

func startProxy(t *testing.T, target string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{addr: ln.Addr().String(), ln: ln}
	p.wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, s)
			p.mu.Unlock()
			p.wg.Go(func() { io.Copy(s, c); s.Close() })
			p.wg.Go(func() { io.Copy(c, s); c.Close() })
		}
	})
	t.Cleanup(p.stop)
	return p
}

func (p *proxy) stop() {
	p.ln.Close()
	p.mu.Lock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
	p.mu.Unlock()
	p.wg.Wait()
}

// dropKeys deletes the keys under prefix of the Redis of opt.
func dropKeys(t *testing.T, opt *redis.Options, prefix string) {
	c := redis.NewClient(opt)
	defer c.Close()
	ctx := context.Background()
	var keys []string
	it := c.Scan(ctx, 0, prefix+"*", 100).Iterator()
	for it.Next(ctx) {
		keys = append(keys, it.Val())
	}
	err := it.Err()
	if err == nil && len(keys) > 0 {
		err = c.Del(ctx, keys...).Err()
	}
	if err != nil {
		t.Errorf("dropping keys %s*: %v", prefix, err)
	}
}

// TestChangesByGrant: the Tags page lists only the changes of the tags the visitor's
// token grants, so a token of one tag sees neither the other tags' changes nor the names
// of who made them.
func TestChangesByGrant(t *testing.T) {
	const oneTag = "invoice-only-token-0123456789"
	s := testserver.Start(t, fmt.Sprintf(`stores:
  local: {type: sqlite, dsn: %q}
tokens:
  - {name: ops, token: %s, admin: true}
  - {name: viewer, token: %s}
  - {name: clerk, token: %s, tags: [invoice]}
tags:
  - {name: invoice, kind: segment, store: local, step: 1000}
  - {name: secret, kind: segment, store: local, step: 1000}
tag_store: local
`, t.TempDir()+"/idgen.db", adminToken, viewerToken, oneTag))
	ctx := context.Background()
	if err := s.Admin().SetStep(ctx, "ops", "invoice", 500); err != nil {
		t.Fatal(err)
	}
	if err := s.Admin().SetStep(ctx, "night-admin", "secret", 700); err != nil {
		t.Fatal(err)
	}
	if err := s.Admin().CreateSegmentTag(ctx, "night-admin", "hidden", 1, 10); err != nil {
		t.Fatal(err)
	}
	list := func(token string) string {
		t.Helper()
		res, page := get(t, http.DefaultClient, s.URL+"/tags", "Authorization", "Bearer "+token)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("tags: %d", res.StatusCode)
		}
		return changeList(page)
	}
	if got := list(viewerToken); !strings.Contains(got, `"invoice"`) || !strings.Contains(got, `"secret"`) || !strings.Contains(got, `"hidden"`) {
		t.Errorf("a token of every tag sees:\n%s", got)
	}
	got := list(oneTag)
	if !strings.Contains(got, `set the step of tag "invoice" to 500`) {
		t.Errorf("a token of invoice does not see its change:\n%s", got)
	}
	for _, hidden := range []string{"secret", "hidden", "night-admin"} {
		if strings.Contains(got, hidden) {
			t.Errorf("a token of invoice sees %q:\n%s", hidden, got)
		}
	}
}

// TestStepMaybeKeptPage: a step change the store does not confirm in time (another
// transaction holds its change table) tells the admin it may have been kept and to check
// the change list, not that the step was not changed.
func TestStepMaybeKeptPage(t *testing.T) {
	dsn := os.Getenv("IDGEN_TEST_POSTGRES_DSN")
	if dsn == "" {
		t.Skip("IDGEN_TEST_POSTGRES_DSN is not set")
	}
	table := "idgen_console_maybe_" + strings.ToLower(rand.Text()[:8])
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		db.Exec("DROP TABLE IF EXISTS " + table)
		db.Exec("DROP TABLE IF EXISTS " + table + "_changes")
		db.Close()
	})
	s := testserver.Start(t, fmt.Sprintf(`stores:
  pg: {type: postgres, dsn: %q, segment_table: %s}
tokens:
  - {name: ops, token: %s, admin: true}
tags:
  - {name: invoice, kind: segment, store: pg, step: 1000}
`, dsn, table, adminToken))
	ctx := context.Background()
	if err := s.Admin().SetStep(ctx, "ops", "invoice", 500); err != nil { // the change table exists
		t.Fatal(err)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec("LOCK TABLE " + table + "_changes IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, s.URL+"/tags/step", strings.NewReader(url.Values{"tag": {"invoice"}, "step": {"700"}, "confirm": {"yes"}}.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Authorization", "Bearer "+adminToken)
	res, page := do(t, http.DefaultClient, req) // the write waits for dataplane.CallTimeout
	tx.Rollback()
	want := "The store did not confirm the step change in time: it may have been kept, and then every instance applies it within 30 s. Check the change list below before trying again."
	if got := alert(page); res.StatusCode != http.StatusUnprocessableEntity || got != want {
		t.Errorf("a step change not confirmed in time: %d %q, want 422 %q", res.StatusCode, got, want)
	}
}
