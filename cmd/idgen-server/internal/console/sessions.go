package console

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"strconv"
	"strings"
	"time"

	"github.com/idgen/idgen/cmd/idgen-server/internal/auth"
)

// session is one sign-in: the token's grant (never the token), and the token its forms
// carry, which another site cannot read, so it cannot forge them.
type session struct {
	value   string // the cookie's value
	g       *auth.Grant
	csrf    string
	expires time.Time
}

func (s *session) checkCSRF(got string) bool {
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(s.csrf)) == 1
}

// sessions signs and checks session cookies. A session is kept by nobody: its cookie is
//
//	v1.<token name, base64url>.<expiry, Unix seconds>.<random nonce>.<MAC, base64url>
//
// the MAC being HMAC-SHA256 of what precedes it keyed by the token's session key
// (auth.Auth.SessionKey, derived from the token's secret). So every instance
// configured with the same token accepts the cookie, across restarts; a new secret ends
// the token's sessions; and the cookie holds no secret. The price of keeping nothing:
// signing out deletes the cookie from the browser, but a copy taken before (a stolen
// cookie) stays valid until its expiry, SessionTTL after the sign-in.
type sessions struct {
	// keys returns the grant and session key of the token named name.
	keys func(name string) (*auth.Grant, []byte, bool)
}

// sessionVersion starts every session cookie: a cookie of another format is refused.
const sessionVersion = "v1"

var b64 = base64.RawURLEncoding

// mac returns HMAC-SHA256 of label and msg keyed by key, base64url.
func mac(key []byte, label, msg string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(label))
	m.Write([]byte{0})
	m.Write([]byte(msg))
	return b64.EncodeToString(m.Sum(nil))
}

// add starts a session for g, lasting SessionTTL from now. It returns nil when no token
// is named as g is (an open server: no session).
func (ss *sessions) add(g *auth.Grant, now time.Time) *session {
	_, key, ok := ss.keys(g.Name)
	if !ok {
		return nil
	}
	expires := now.Add(SessionTTL).Truncate(time.Second)
	body := sessionVersion + "." + b64.EncodeToString([]byte(g.Name)) + "." + strconv.FormatInt(expires.Unix(), 10) + "." + rand.Text()
	value := body + "." + mac(key, "session", body)
	return &session{value: value, g: g, csrf: mac(key, "csrf", value), expires: expires}
}

// get returns the session of a cookie's value: nil unless its MAC matches the session
// key of the token it names and it has not expired.
func (ss *sessions) get(value string, now time.Time) *session {
	body, sum, ok := cutLast(value, ".")
	if !ok {
		return nil
	}
	parts := strings.Split(body, ".")
	if len(parts) != 4 || parts[0] != sessionVersion {
		return nil
	}
	name, err := b64.DecodeString(parts[1])
	if err != nil {
		return nil
	}
	exp, err := strconv.ParseInt(parts[2], 10, 64)
	if err != nil {
		return nil
	}
	g, key, ok := ss.keys(string(name))
	if !ok || !hmac.Equal([]byte(sum), []byte(mac(key, "session", body))) {
		return nil
	}
	expires := time.Unix(exp, 0)
	if !now.Before(expires) {
		return nil
	}
	return &session{value: value, g: g, csrf: mac(key, "csrf", value), expires: expires}
}

// cutLast is strings.Cut at the last sep.
func cutLast(s, sep string) (before, after string, found bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}
