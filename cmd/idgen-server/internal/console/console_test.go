package console_test

import (
	"context"
	"html"
	"io"
	"maps"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"

	"github.com/idgen/idgen/cmd/idgen-server/internal/testserver"
	v1 "github.com/idgen/idgen/idgenclient/idgenv1"
	"github.com/idgen/idgen/idgenclient/idgenv1/idgenv1connect"
)

const (
	adminToken  = "ops-admin-token-0123456789"
	viewerToken = "viewer-token-0123456789ab"
)

// tagNames are the configured tags: no page shows any of them to a visitor without a
// token.
var tagNames = []string{"payments", "invoice", "order-no", "customer", "session-tid"}

// fleetConfig is one instance of a fleet sharing the SQLite file db for the lease and the
// segments: the instances find one another through it. peers, if any, are configured
// beside.
func fleetConfig(db string, peers ...string) string {
	return fleetConfigWith(db, adminToken, peers...)
}

// fleetConfigWith is fleetConfig with admin as the secret of the admin token ops.
func fleetConfigWith(db, admin string, peers ...string) string {
	var peerYAML string
	if len(peers) > 0 {
		peerYAML = "peers: [" + strings.Join(peers, ", ") + "]\n"
	}
	return `stores:
  local: {type: sqlite, dsn: "` + db + `"}
snowflake:
  layout: classic
  lease: {store: local, ttl: 3s}
tokens:
  - {name: ops, token: ` + admin + `, admin: true}
  - {name: viewer, token: ` + viewerToken + `}
tags:
  - {name: payments, kind: snowflake}
  - {name: invoice, kind: segment, store: local, step: 1000}
  - {name: order-no, kind: number, prefix: ORD, check: true, zone: "+08:00"}
  - {name: customer, kind: snowflake, prefix: cus}
  - {name: session-tid, kind: typeid, prefix: sess}
tag_store: local
console: {rate_interval: 1s}
` + peerYAML
}

type fleet struct {
	a, b *testserver.Server
	db   string // the SQLite file they share
}

// startFleet starts two instances that share an SQLite file, with no peers configured
// (they find each other through the file), and waits until both are ready. peers are
// configured on the first.
func startFleet(t *testing.T, peers ...string) fleet {
	t.Helper()
	db := t.TempDir() + "/idgen.db"
	a := testserver.Start(t, fleetConfig(db, peers...))
	b := testserver.Start(t, fleetConfig(db))
	testserver.WaitReady(t, a.URL)
	testserver.WaitReady(t, b.URL)
	return fleet{a, b, db}
}

// TestFleetPage: the fleet page of each instance lists the other one, found through
// their shared lease store with no peers configured, with the worker ID its own Status
// reports; an instance under peers (on a static worker ID, in no store) is listed too.
func TestFleetPage(t *testing.T) {
	static := testserver.Start(t, `snowflake: {lease: {worker: 901}}
tokens: [{name: ops, token: `+adminToken+`, admin: true}, {name: viewer, token: `+viewerToken+`}]
tags: [{name: payments, kind: snowflake}]
`)
	f := startFleet(t, static.URL)
	want := map[string]map[string]string{
		f.a.URL: {f.a.URL: itoa(f.a.Status(nil).Lease.GetWorker()), f.b.URL: itoa(f.b.Status(nil).Lease.GetWorker()), static.URL: "901"},
		f.b.URL: {f.a.URL: itoa(f.a.Status(nil).Lease.GetWorker()), f.b.URL: itoa(f.b.Status(nil).Lease.GetWorker())},
	}
	if want[f.a.URL][f.a.URL] == want[f.a.URL][f.b.URL] {
		t.Fatalf("both instances hold worker %s", want[f.a.URL][f.a.URL])
	}
	row := regexp.MustCompile(`(?s)<tr class="(good|bad)" data-instance="([^"]*)">.*?class="num worker">([^<]*)</td>`)
	for base, rows := range want {
		_, page := get(t, browserless(t), base+"/", "Authorization", "Bearer "+viewerToken)
		got := map[string]string{}
		for _, m := range row.FindAllStringSubmatch(page, -1) {
			if m[1] != "good" {
				t.Errorf("%s lists %s in trouble", base, m[2])
			}
			got[m[2]] = m[3]
		}
		if !maps.Equal(got, rows) {
			t.Errorf("the fleet page of %s lists %v, want %v", base, got, rows)
		}
	}
}

func client(url, token string) idgenv1connect.IDServiceClient {
	auth := connect.WithInterceptors(connect.UnaryInterceptorFunc(func(next connect.UnaryFunc) connect.UnaryFunc {
		return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
			req.Header().Set("Authorization", "Bearer "+token)
			return next(ctx, req)
		}
	}))
	return idgenv1connect.NewIDServiceClient(http.DefaultClient, url, auth)
}

// browserless is an HTTP client that keeps cookies and does not follow redirects, so a
// test sees each answer.
func browserless(t *testing.T) *http.Client {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{
		Jar:           jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Timeout:       30 * time.Second,
	}
}

// post sends a form like a browser of origin would.
func post(t *testing.T, c *http.Client, base, path, origin string, form url.Values) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, base+path, strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	return do(t, c, req)
}

func get(t *testing.T, c *http.Client, url string, header ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return do(t, c, req)
}

func do(t *testing.T, c *http.Client, req *http.Request) (*http.Response, string) {
	t.Helper()
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, string(b)
}

// csrfOf returns the form token in a page.
func csrfOf(t *testing.T, page string) string {
	t.Helper()
	const marker = `name="csrf" value="`
	i := strings.Index(page, marker)
	if i < 0 {
		t.Fatalf("no csrf field in the page:\n%s", page)
	}
	rest := page[i+len(marker):]
	return rest[:strings.IndexByte(rest, '"')]
}

// TestAccess: without a token every page is the login form (401) and names no tag; the
// login sets a Secure, HttpOnly, SameSite=Strict cookie; a wrong token is refused; a
// bearer token works without a session; a read-only token cannot change tags.
func TestAccess(t *testing.T) {
	f := startFleet(t)
	base := f.a.URL
	c := browserless(t)
	for _, path := range []string{"/", "/tags", "/decode", "/decode?id=1"} {
		res, body := get(t, c, base+path)
		if res.StatusCode != http.StatusUnauthorized || !strings.Contains(body, `id="token"`) {
			t.Errorf("GET %s without a token: %d, want 401 and the login form", path, res.StatusCode)
		}
		for _, name := range tagNames {
			if strings.Contains(body, name) {
				t.Errorf("GET %s without a token names tag %q", path, name)
			}
		}
	}
	if res, body := post(t, c, base, "/decode", base, url.Values{"id": {"1"}}); res.StatusCode != http.StatusUnauthorized || strings.Contains(body, "result") {
		t.Errorf("POST /decode without a token: %d", res.StatusCode)
	}
	if res, _ := post(t, c, base, "/login", base, url.Values{"token": {"wrong-token-0123456789"}}); res.StatusCode != http.StatusUnauthorized || len(res.Cookies()) != 0 {
		t.Errorf("a wrong token: %d, cookies %v", res.StatusCode, res.Cookies())
	}
	// Someone else's site cannot sign a browser in (login CSRF).
	if res, _ := post(t, c, base, "/login", "https://evil.example", url.Values{"token": {viewerToken}}); res.StatusCode != http.StatusForbidden {
		t.Errorf("a sign-in from another origin: %d, want 403", res.StatusCode)
	}
	res, _ := post(t, c, base, "/login", base, url.Values{"token": {viewerToken}, "next": {"//evil.example/"}})
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/" {
		t.Fatalf("sign-in: %d to %q, want 303 to / (never another host)", res.StatusCode, res.Header.Get("Location"))
	}
	ck := res.Cookies()
	if len(ck) != 1 || !ck[0].Secure || !ck[0].HttpOnly || ck[0].SameSite != http.SameSiteStrictMode || ck[0].Path != "/" {
		t.Fatalf("session cookie %+v, want Secure, HttpOnly, SameSite=Strict", ck)
	}
	res, body := get(t, c, base+"/tags")
	if res.StatusCode != http.StatusOK || !strings.Contains(body, `data-tag="invoice"`) || strings.Contains(body, `id="create-form"`) {
		t.Fatalf("tags, read-only: %d\n%s", res.StatusCode, body)
	}
	if res.Header.Get("Content-Security-Policy") == "" || res.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("headers %v", res.Header)
	}
	res, _ = post(t, c, base, "/tags/create", base, url.Values{"csrf": {csrfOf(t, body)}, "name": {"x"}, "start": {"1"}, "step": {"1"}, "confirm": {"yes"}})
	if res.StatusCode != http.StatusForbidden {
		t.Errorf("a read-only token creating a tag: %d, want 403", res.StatusCode)
	}
	// A bearer token needs no session.
	if res, body := get(t, http.DefaultClient, base+"/tags", "Authorization", "Bearer "+adminToken); res.StatusCode != http.StatusOK || !strings.Contains(body, `id="create-form"`) {
		t.Errorf("bearer admin token: %d", res.StatusCode)
	}
	if res, _ := get(t, http.DefaultClient, base+"/tags", "Authorization", "Bearer nope-nope-nope-nope"); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("bearer wrong token: %d", res.StatusCode)
	}
	// A link cannot put words on the page.
	if _, body := get(t, c, base+"/tags?done=created&tag=Call+555-0100+now"); strings.Contains(body, "555-0100") {
		t.Error("the flash message repeats a link's text")
	}
}

// TestAdminForms: an admin's change needs the session's form token and the same origin,
// asks for confirmation first, and is logged with who made it.
func TestAdminForms(t *testing.T) {
	f := startFleet(t)
	base := f.a.URL
	c := browserless(t)
	post(t, c, base, "/login", base, url.Values{"token": {adminToken}})
	_, page := get(t, c, base+"/tags")
	csrf := csrfOf(t, page)
	form := url.Values{"csrf": {csrf}, "name": {"refund"}, "start": {"777"}, "step": {"10"}}

	for _, tc := range []struct {
		name   string
		csrf   string
		origin string
	}{
		{"no form token", "", base},
		{"another session's token", "AAAAAAAAAAAAAAAAAAAAAAAAAA", base},
		{"another site", csrf, "https://evil.example"},
	} {
		f := url.Values{"csrf": {tc.csrf}, "name": {"refund"}, "start": {"777"}, "step": {"10"}, "confirm": {"yes"}}
		if res, _ := post(t, c, base, "/tags/create", tc.origin, f); res.StatusCode != http.StatusForbidden {
			t.Errorf("%s: %d, want 403", tc.name, res.StatusCode)
		}
	}
	// The first POST asks; nothing is created yet.
	res, body := post(t, c, base, "/tags/create", base, form)
	if res.StatusCode != http.StatusOK || !strings.Contains(body, `id="confirm-yes"`) || f.a.Serves("refund") {
		t.Fatalf("create without confirm: %d, served %v\n%s", res.StatusCode, f.a.Serves("refund"), body)
	}
	form.Set("confirm", "yes")
	if res, _ := post(t, c, base, "/tags/create", base, form); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("create confirmed: %d", res.StatusCode)
	}
	got, err := client(base, viewerToken).Next(context.Background(), connect.NewRequest(&v1.NextRequest{Tag: "refund"}))
	if err != nil || got.Msg.Id != 777 {
		t.Fatalf("first ID of the new tag: %v, %v", got, err)
	}
	// The other instance shares the tag store: it serves the tag once it looks again.
	if err := f.b.Admin().RefreshTags(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, err := client(f.b.URL, viewerToken).Next(context.Background(), connect.NewRequest(&v1.NextRequest{Tag: "refund"})); err != nil || got.Msg.Id <= 777 {
		t.Fatalf("the other instance: %v, %v", got, err)
	}
	// Creating it again is refused and says why.
	if res, body := post(t, c, base, "/tags/create", base, form); res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "tag exists") {
		t.Errorf("create twice: %d\n%s", res.StatusCode, body)
	}
	// A step change, confirmed.
	step := url.Values{"csrf": {csrf}, "tag": {"invoice"}, "step": {"5000"}, "confirm": {"yes"}}
	if res, _ := post(t, c, base, "/tags/step", base, step); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("step: %d", res.StatusCode)
	}
	_, page = get(t, c, base+"/tags")
	for _, want := range []string{`<strong>ops</strong>: create segment tag &#34;refund&#34;`, `<strong>ops</strong>: set the step of tag &#34;invoice&#34; to 5000`} {
		if !strings.Contains(page, want) {
			t.Errorf("the Tags page does not list %s", want)
		}
	}
	// Sign out: the session is gone.
	post(t, c, base, "/logout", base, url.Values{"csrf": {csrf}})
	if res, _ := get(t, c, base+"/tags"); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("after sign-out: %d", res.StatusCode)
	}
}

// TestDecodeForm: the decoder is a plain form POST (it works with JavaScript off) and
// says exactly what is wrong with a bad input.
func TestDecodeForm(t *testing.T) {
	f := startFleet(t)
	base := f.a.URL
	c := browserless(t)
	post(t, c, base, "/login", base, url.Values{"token": {viewerToken}})
	api := client(base, viewerToken)
	num, err := api.Next(context.Background(), connect.NewRequest(&v1.NextRequest{Tag: "order-no"}))
	if err != nil {
		t.Fatal(err)
	}
	typed, err := api.Next(context.Background(), connect.NewRequest(&v1.NextRequest{Tag: "customer"}))
	if err != nil {
		t.Fatal(err)
	}
	tid, err := api.Next(context.Background(), connect.NewRequest(&v1.NextRequest{Tag: "session-tid"}))
	if err != nil {
		t.Fatal(err)
	}
	worker := f.a.Status(nil).Lease.GetWorker()
	for _, tc := range []struct {
		id, zone string
		status   int
		want     []string
	}{
		{num.Msg.Text, "Asia/Shanghai", 200, []string{`id="r-worker">` + itoa(worker), "+08:00 CST", "A number ID of tag order-no"}},
		{typed.Msg.Text, "", 200, []string{`id="r-worker">` + itoa(worker), "A snowflake ID of tag customer"}},
		{itoa(typed.Msg.Id), "UTC", 200, []string{`id="r-worker">` + itoa(worker), "A snowflake ID", "a segment tag (invoice)"}},
		{tid.Msg.Text, "", 200, []string{"A typeid ID of tag session-tid", `id="r-utc"`}},
		{wrongCheckDigit(num.Msg.Text), "", 422, []string{"bad check digit"}},
		{"XYZ20260101000000123", "", 422, []string{"unknown prefix", "the prefixes are ORD"}},
		{"abc_0e2k5jd1r8c00", "", 422, []string{"unknown prefix", "cus_, sess_"}},
		{"9223372036854775808", "", 422, []string{"out of range", "above the largest ID"}},
		{"9223372036854775807", "", 422, []string{"out of range", "in the future"}},
		{"0190a6f4-7c3e-4b5a-9c1d-2e3f4a5b6c7d", "", 422, []string{"not a UUIDv7", "version 4"}},
		{"hello world", "", 422, []string{"not an ID"}},
		{num.Msg.Text, "Mars/Olympus", 400, []string{"zone"}},
	} {
		res, body := post(t, c, base, "/decode", base, url.Values{"id": {tc.id}, "zone": {tc.zone}})
		if res.StatusCode != tc.status {
			t.Errorf("decode %q: %d, want %d", tc.id, res.StatusCode, tc.status)
		}
		body = html.UnescapeString(body)
		for _, w := range tc.want {
			if !strings.Contains(body, w) {
				t.Errorf("decode %q: the page does not say %q", tc.id, w)
				i := strings.Index(body, `<main`)
				t.Log(body[i:])
			}
		}
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
