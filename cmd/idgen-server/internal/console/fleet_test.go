package console_test

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/idgen/idgen/cmd/idgen-server/internal/console"
	"github.com/idgen/idgen/cmd/idgen-server/internal/testserver"
)

// TestFleetConsole: behind a load balancer every request may reach another instance. A
// session cookie from one instance's sign-in works on the other (with the same form
// token) and after a restart; a step changed through one instance's console is applied
// by the other at its refresh and by the restarted instance; every instance lists the
// changes with the admin token's name. A tampered cookie, or one signed under the
// token's former secret, is refused.
func TestFleetConsole(t *testing.T) {
	f := startFleet(t)
	ctx := context.Background()
	res, _ := post(t, browserless(t), f.a.URL, "/login", f.a.URL, url.Values{"token": {adminToken}})
	if len(res.Cookies()) != 1 || res.Cookies()[0].Name != console.CookieName {
		t.Fatalf("sign-in on a: %d, cookies %v", res.StatusCode, res.Cookies())
	}
	cookie := res.Cookies()[0].Value
	if strings.Contains(cookie, adminToken) {
		t.Fatal("the cookie holds the token")
	}
	page := func(base, value string) (*http.Response, string) {
		t.Helper()
		return get(t, http.DefaultClient, base+"/tags", "Cookie", console.CookieName+"="+value)
	}
	form := func(base, path, value string, f url.Values) *http.Response {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, base+path, strings.NewReader(f.Encode()))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", base)
		req.Header.Set("Cookie", console.CookieName+"="+value)
		res, _ := do(t, browserless(t), req)
		return res
	}
	var csrf string
	for _, s := range []*testserver.Server{f.a, f.b} {
		res, body := page(s.URL, cookie)
		if res.StatusCode != http.StatusOK || !strings.Contains(body, `id="step-form"`) {
			t.Fatalf("%s/tags with a's session: %d", s.URL, res.StatusCode)
		}
		switch got := csrfOf(t, body); {
		case csrf == "":
			csrf = got
		case got != csrf:
			t.Errorf("form token on b %q, on a %q: want the same", got, csrf)
		}
	}
	// The step changed through a's console; b applies it at its refresh.
	if res := form(f.a.URL, "/tags/step", cookie, url.Values{"csrf": {csrf}, "tag": {"invoice"}, "step": {"5000"}, "confirm": {"yes"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("step change on a: %d", res.StatusCode)
	}
	if got := invoiceStep(t, f.b); got == 5000 {
		t.Fatal("b has the step before its refresh")
	}
	if err := f.b.Admin().RefreshTags(ctx); err != nil {
		t.Fatal(err)
	}
	if got := invoiceStep(t, f.b); got != 5000 {
		t.Fatalf("b's step after its refresh: %d, want 5000", got)
	}
	// a's session and form token work on b's forms too.
	if res := form(f.b.URL, "/tags/create", cookie, url.Values{"csrf": {csrf}, "name": {"refund"}, "start": {"777"}, "step": {"10"}, "confirm": {"yes"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("create on b with a's session: %d", res.StatusCode)
	}
	for _, s := range []*testserver.Server{f.a, f.b} {
		_, body := page(s.URL, cookie)
		for _, want := range []string{`<strong>ops</strong>: set the step of tag &#34;invoice&#34; to 5000 (was 1000)`, `<strong>ops</strong>: create segment tag &#34;refund&#34;`} {
			if !strings.Contains(body, want) {
				t.Errorf("%s/tags does not list %s", s.URL, want)
			}
		}
	}

	// a restarts: the session lives on, and the step is applied before the first block.
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := f.a.Shutdown(sctx); err != nil {
		t.Fatal(err)
	}
	a := testserver.Start(t, fleetConfig(f.db))
	if res, _ := page(a.URL, cookie); res.StatusCode != http.StatusOK {
		t.Errorf("the restarted instance refuses the session: %d", res.StatusCode)
	}
	if rs := tagStatus(t, a, "invoice").Reservations; len(rs) == 0 || rs[0].Step != 5000 {
		t.Errorf("the restarted instance's reservations %v, want the first of 5000", rs)
	}
	// Refused: a cookie changed anywhere, and a cookie after the token's secret changed.
	parts := strings.Split(cookie, ".")
	tampered := map[string]string{
		"empty":          "",
		"another format": "v2" + strings.TrimPrefix(cookie, "v1"),
		"another name":   strings.Replace(cookie, parts[1], "dmlld2Vy", 1), // "viewer"
		"later expiry":   strings.Replace(cookie, "."+parts[2]+".", "."+later(t, parts[2])+".", 1),
		"another nonce":  strings.Replace(cookie, parts[3], strings.Repeat("A", len(parts[3])), 1),
		"another MAC":    cookie[:len(cookie)-2] + flip(cookie[len(cookie)-2:]),
		"no MAC":         strings.Join(parts[:4], "."),
	}
	for what, v := range tampered {
		if v == cookie {
			t.Fatalf("%s: not changed", what)
		}
		if res, body := page(a.URL, v); res.StatusCode != http.StatusUnauthorized || strings.Contains(body, `data-tag="invoice"`) {
			t.Errorf("a cookie with %s: %d, want 401", what, res.StatusCode)
		}
	}
	rotated := testserver.Start(t, fleetConfigWith(f.db, "rotated-admin-token-0123456789"))
	if res, _ := page(rotated.URL, cookie); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("an instance where ops has another secret accepts the session: %d", res.StatusCode)
	}
	// Signing out on b deletes the cookie.
	res = form(f.b.URL, "/logout", cookie, url.Values{"csrf": {csrf}})
	if ck := res.Cookies(); res.StatusCode != http.StatusSeeOther || len(ck) != 1 || ck[0].MaxAge >= 0 || ck[0].Value != "" {
		t.Errorf("sign-out: %d, cookies %v", res.StatusCode, ck)
	}
}

// later returns the Unix time exp plus a day.
func later(t *testing.T, exp string) string {
	n, err := strconv.ParseInt(exp, 10, 64)
	if err != nil {
		t.Fatalf("expiry %q: %v", exp, err)
	}
	return strconv.FormatInt(n+86400, 10)
}

// flip changes every byte of s to another base64url byte.
func flip(s string) string {
	b := []byte(s)
	for i := range b {
		if b[i] == 'A' {
			b[i] = 'B'
		} else {
			b[i] = 'A'
		}
	}
	return string(b)
}

func invoiceStep(t *testing.T, s *testserver.Server) int64 {
	t.Helper()
	return tagStatus(t, s, "invoice").Step
}
