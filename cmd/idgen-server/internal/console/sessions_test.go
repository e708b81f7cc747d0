package console

import (
	"testing"
	"time"

	"github.com/idgen/idgen/cmd/idgen-server/internal/auth"
)

// TestSessionExpiry: a session lasts SessionTTL, its form token is the same each time
// the cookie is read, and a key other than its token's refuses it.
func TestSessionExpiry(t *testing.T) {
	g := &auth.Grant{Name: "ops", All: true, Admin: true}
	key := []byte("key-of-ops")
	ss := sessions{keys: func(name string) (*auth.Grant, []byte, bool) { return g, key, name == "ops" }}
	now := time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)
	s := ss.add(g, now)
	if s == nil {
		t.Fatal("no session")
	}
	for _, tc := range []struct {
		at   time.Duration
		live bool
	}{{0, true}, {SessionTTL - time.Second, true}, {SessionTTL, false}, {SessionTTL + time.Hour, false}} {
		got := ss.get(s.value, now.Add(tc.at))
		if (got != nil) != tc.live {
			t.Errorf("at +%v: live %v, want %v", tc.at, got != nil, tc.live)
		}
		if got != nil && (got.csrf != s.csrf || got.g != g || !got.checkCSRF(s.csrf) || got.checkCSRF("")) {
			t.Errorf("at +%v: session %+v, want form token %q and the grant", tc.at, got, s.csrf)
		}
	}
	other := sessions{keys: func(string) (*auth.Grant, []byte, bool) { return g, []byte("another key"), true }}
	if other.get(s.value, now) != nil {
		t.Error("a session accepted under another key")
	}
	none := sessions{keys: func(string) (*auth.Grant, []byte, bool) { return nil, nil, false }}
	if none.get(s.value, now) != nil || none.add(g, now) != nil {
		t.Error("a session without its token")
	}
	if ss.add(g, now).value == s.value {
		t.Error("two sign-ins, one cookie: want a nonce each")
	}
}
