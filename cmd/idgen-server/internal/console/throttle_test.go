package console_test

import (
	"net/http"
	"net/url"
	"testing"
)

// TestSignInThrottled: after console.MaxFailedSignIns wrong tokens from one address,
// sign-ins from it are refused (429, Retry-After) for a while, the right token too, so
// that guessing tokens through the form is slow.
func TestSignInThrottled(t *testing.T) {
	f := startFleet(t)
	base := f.a.URL
	c := browserless(t)
	for i := range 5 {
		res, _ := post(t, c, base, "/login", base, url.Values{"token": {"wrong-token-0123456789"}})
		if res.StatusCode != http.StatusUnauthorized && res.StatusCode != http.StatusTooManyRequests {
			t.Fatalf("wrong token %d: %d", i, res.StatusCode)
		}
	}
	res, _ := post(t, c, base, "/login", base, url.Values{"token": {viewerToken}})
	if res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" || len(res.Cookies()) != 0 {
		t.Fatalf("the right token after 5 wrong ones: %d, Retry-After %q, cookies %v; want 429 and no session",
			res.StatusCode, res.Header.Get("Retry-After"), res.Cookies())
	}
	// A bearer token on the API is not the form's business: still served.
	if res, _ := get(t, http.DefaultClient, base+"/tags", "Authorization", "Bearer "+viewerToken); res.StatusCode != http.StatusOK {
		t.Fatalf("a bearer token while the form is throttled: %d", res.StatusCode)
	}
}
