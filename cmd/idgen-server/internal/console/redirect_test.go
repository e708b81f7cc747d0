package console_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/idgen/idgen/cmd/idgen-server/internal/testserver"
)

// nextCases are the `next` values of a sign-in: hostile ones, which a browser would
// take to another host, end at "/"; a path of the console is kept.
var nextCases = []struct{ next, want string }{
	{"/tags", "/tags"},
	{"/decode?id=1", "/decode?id=1"},
	{"//evil.example/", "/"},
	{"/\t/evil.example", "/"},
	{"/\n/evil.example", "/"},
	{"/\r/evil.example", "/"},
	{"/\t\\evil.example", "/"},
	{"/\\evil.example", "/"},
	{"/\\\\evil.example", "/"},
	{"\\\\evil.example", "/"},
	{"/ /evil.example", "/"},
	{"/\x00/evil.example", "/"},
	{"https://evil.example/", "/"},
	{"http:/\\evil.example", "/"},
	{"javascript:alert(1)", "/"},
	{"/login", "/"},
	{"", "/"},
}

// browserHost returns the host a browser goes to for location from base, parsing it as
// browsers do (WHATWG URL): tabs and newlines removed, a backslash read as a slash.
func browserHost(t *testing.T, base, location string) string {
	t.Helper()
	loc := strings.NewReplacer("\t", "", "\n", "", "\r", "", "\\", "/").Replace(location)
	loc = strings.TrimLeft(loc, " \x00")
	b, _ := url.Parse(base)
	u, err := b.Parse(loc)
	if err != nil {
		return "unparsable " + location
	}
	return u.Host
}

// TestSignInNext: a sign-in with a token, and the login page of an open server (which
// redirects at once: everyone is signed in), send the browser only to a path of this
// site, whatever `next` holds.
func TestSignInNext(t *testing.T) {
	f := startFleet(t)
	open := testserver.Start(t, "stores:\n"+testserver.SQLite(t, "local")+"snowflake:\n  lease: {store: local, ttl: 3s}\ntags:\n  - {name: id, kind: snowflake}\n")
	for _, c := range nextCases {
		t.Run(url.QueryEscape(c.next), func(t *testing.T) {
			cl := browserless(t)
			res, _ := post(t, cl, f.a.URL, "/login", f.a.URL, url.Values{"token": {viewerToken}, "next": {c.next}})
			checkNext(t, "sign-in", f.a.URL, res, c.want)
			res, _ = get(t, cl, f.a.URL+"/login?next="+url.QueryEscape(c.next))
			checkNext(t, "signed in, /login", f.a.URL, res, c.want)
			res, _ = get(t, browserless(t), open.URL+"/login?next="+url.QueryEscape(c.next))
			checkNext(t, "open server, /login", open.URL, res, c.want)
		})
	}
}

func checkNext(t *testing.T, what, base string, res *http.Response, want string) {
	t.Helper()
	loc := res.Header.Get("Location")
	if res.StatusCode != http.StatusSeeOther || loc != want {
		t.Errorf("%s: %d to %q, want 303 to %q", what, res.StatusCode, loc, want)
	}
	if h := browserHost(t, base, loc); h != strings.TrimPrefix(base, "http://") {
		t.Errorf("%s: a browser goes to host %q", what, h)
	}
}
