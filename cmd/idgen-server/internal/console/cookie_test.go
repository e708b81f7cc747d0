package console_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/idgen/idgen/cmd/idgen-server/internal/console"
	"github.com/idgen/idgen/cmd/idgen-server/internal/testserver"
)

// TestSessionCookieName: over TLS the sign-in sets __Host-idgen_console with Path=/, no
// Domain, Secure, HttpOnly and SameSite=Strict, and a cookie of the same value under the
// plain name is not accepted; over plain HTTP on loopback the cookie keeps its plain
// name and the __Host- name is not accepted. Each name opens the pages, carries the
// form token and is deleted by signing out.
func TestSessionCookieName(t *testing.T) {
	s := testserver.Start(t, fleetConfig(t.TempDir()+"/idgen.db"))
	testserver.WaitReady(t, s.URL)
	tls := httptest.NewTLSServer(s.Handler())
	t.Cleanup(tls.Close)
	tests := []struct {
		name        string
		base        string
		client      func() *http.Client // a fresh browserless client for base
		cookie, not string
	}{
		{"tls", tls.URL, func() *http.Client {
			c := browserless(t)
			c.Transport = tls.Client().Transport
			return c
		}, console.HostCookieName, console.CookieName},
		{"http loopback", s.URL, func() *http.Client { return browserless(t) }, console.CookieName, console.HostCookieName},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.client()
			res, _ := post(t, c, tt.base, "/login", tt.base, url.Values{"token": {adminToken}})
			raw := res.Header.Values("Set-Cookie")
			if res.StatusCode != http.StatusSeeOther || len(raw) != 1 {
				t.Fatalf("sign-in: %d, Set-Cookie %q", res.StatusCode, raw)
			}
			ck, err := http.ParseSetCookie(raw[0])
			if err != nil {
				t.Fatal(err)
			}
			if ck.Name != tt.cookie || ck.Path != "/" || ck.Domain != "" || strings.Contains(strings.ToLower(raw[0]), "domain") ||
				!ck.Secure || !ck.HttpOnly || ck.SameSite != http.SameSiteStrictMode || ck.MaxAge <= 0 {
				t.Fatalf("Set-Cookie %q, want %s; Path=/; Secure; HttpOnly; SameSite=Strict and no Domain", raw[0], tt.cookie)
			}
			// A fresh client (no jar) sends the session's value under one name.
			page := func(name string) (*http.Response, string) {
				return get(t, tt.client(), tt.base+"/tags", "Cookie", name+"="+ck.Value)
			}
			res, body := page(tt.cookie)
			if res.StatusCode != http.StatusOK || !strings.Contains(body, `id="step-form"`) {
				t.Fatalf("/tags with %s: %d", tt.cookie, res.StatusCode)
			}
			csrf := csrfOf(t, body)
			if res, body := page(tt.not); res.StatusCode != http.StatusUnauthorized || strings.Contains(body, `id="step-form"`) {
				t.Errorf("/tags with the session under %s: %d, want 401", tt.not, res.StatusCode)
			}
			res, _ = post(t, c, tt.base, "/logout", tt.base, url.Values{"csrf": {csrf}})
			raw = res.Header.Values("Set-Cookie")
			if len(raw) != 1 {
				t.Fatalf("sign-out: %d, Set-Cookie %q", res.StatusCode, raw)
			}
			if del, err := http.ParseSetCookie(raw[0]); err != nil || del.Name != tt.cookie || del.MaxAge >= 0 {
				t.Errorf("sign-out Set-Cookie %q, want %s deleted", raw[0], tt.cookie)
			}
		})
	}
}
