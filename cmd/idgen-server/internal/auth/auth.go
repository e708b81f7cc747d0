package auth

import (
	"context"
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"connectrpc.com/connect"

	"github.com/idgen/idgen/cmd/idgen-server/internal/config"
	"github.com/idgen/idgen/idgenclient/idgenv1/idgenv1connect"
)

// Auth checks bearer tokens, for the API and the console alike. Each configured token is kept as its SHA-256, and a
// presented token is hashed and compared with every one in constant time (no early
// exit), so neither a token's bytes nor its length nor which entry matched shows in the
// time taken.
type Auth struct {
	open   bool // no token configured: every caller may use every tag
	tokens []tokenEntry
	// fleetKey returns the key that signs and checks the Status calls of Fleet
	// (FleetHeader): derived, at first use, from the first token granting every tag,
	// which every instance of a fleet shares; nil when no such token is configured
	// (nothing is signed, no signature is accepted).
	fleetKey func() []byte
	// self is this server's advertised base URL as urlKey writes it: the only target a
	// fleet signature is accepted for.
	self string
	now  func() time.Time
}

type tokenEntry struct {
	name string
	hash [sha256.Size]byte
	g    *Grant
	// sessionKey returns the key that signs the console's sessions of this token:
	// derived from the secret at first use, so a new secret ends them, and an instance
	// without the secret cannot accept them.
	sessionKey func() []byte
}

// Labels of the keys derived from a token's secret (the PBKDF2 salt of each use), so
// that each key serves one use and shows nothing of the secret.
const (
	sessionKeyLabel = "idgen-server console session key v1"
	fleetKeyLabel   = "idgen-server fleet status key v1"
)

// KeyIterations is the PBKDF2-SHA256 iteration count of the keys derived from a token's
// secret (console sessions, fleet signatures), each once, at its first use (a server
// whose console nobody signs in to derives no session key): about 30 ms each on a
// loaded 2-core machine (measured with Go 1.26), so that a stolen session cookie or a
// captured fleet signature makes guessing the token offline slow.
const KeyIterations = 200_000

// FleetHeader carries the signature of a Status call from another instance of the
// fleet (Fleet): "<unix ms>.<base64url HMAC-SHA256(fleet key, "status\n" + target base
// URL + "\n" + unix ms)>". No bearer token leaves a server for a peer: a URL written into
// the lease store or under peers receives a signature good only for the instance that
// URL names, for Status only, for FleetSkew.
const FleetHeader = "Idgen-Fleet"

// FleetSkew is how far a fleet signature's time may be from the recipient's clock.
const FleetSkew = 30 * time.Second

// deriveKey derives the key of one use (label) from a token's secret.
func deriveKey(secret, label string) []byte {
	k, err := pbkdf2.Key(sha256.New, secret, []byte(label), KeyIterations, sha256.Size)
	if err != nil {
		panic("auth: pbkdf2: " + err.Error()) // only for parameters out of FIPS bounds
	}
	return k
}

// FleetSignature returns the FleetHeader value signing a Status call to target at ms
// (unix milliseconds) with key (Auth.FleetKey).
func FleetSignature(key []byte, target string, ms int64) string {
	t := strconv.FormatInt(ms, 10)
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte("status\n" + URLKey(target) + "\n" + t))
	return t + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// fleetGrant is the grant of a Status call signed with the fleet key: every tag's
// status, and no other procedure.
var fleetGrant = &Grant{Name: "fleet", All: true, only: idgenv1connect.IDServiceStatusProcedure}

// CheckFleet reports whether header (FleetHeader's value) is a fleet signature of a
// Status call to this server, made within FleetSkew of now.
func (a *Auth) CheckFleet(header string) bool {
	if a.fleetKey == nil || header == "" {
		return false
	}
	t, _, ok := strings.Cut(header, ".")
	ms, err := strconv.ParseInt(t, 10, 64)
	if !ok || err != nil {
		return false
	}
	if d := a.now().Sub(time.UnixMilli(ms)); d > FleetSkew || d < -FleetSkew {
		return false
	}
	return hmac.Equal([]byte(header), []byte(FleetSignature(a.fleetKey(), a.self, ms)))
}

// Grant is what a token allows: every tag, or those named, and whether it may change
// tags (the console's admin forms).
type Grant struct {
	// Name is the token's name in the configuration ("open" when no token is
	// configured): who made a change, in the log.
	Name string
	// All says the token grants every tag; Admin, that it may also change them.
	All, Admin bool
	tags       map[string]bool
	// only, when set, is the one procedure the grant allows (the fleet's Status).
	only string
}

// Allows reports whether g grants tag; a nil Grant (no auth configured) grants all.
func (g *Grant) Allows(tag string) bool {
	return g == nil || g.All || g.tags[tag]
}

// everything is the grant of every call when no token is configured.
var everything = &Grant{Name: "open", All: true}

// New builds the Auth of cfg's tokens, whose secrets config read when it was loaded. The
// server builds one and hands it to the console.
func New(cfg *config.Config) (*Auth, error) {
	a := &Auth{open: len(cfg.Tokens) == 0, self: URLKey(cfg.Advertise), now: time.Now}
	for i, t := range cfg.Tokens {
		secret, err := t.Secret()
		if err != nil {
			return nil, fmt.Errorf("auth: %w", err)
		}
		name := t.Name
		if name == "" {
			name = "tokens[" + strconv.Itoa(i) + "]"
		}
		g := &Grant{Name: name, All: len(t.Tags) == 0, Admin: t.Admin && len(t.Tags) == 0, tags: map[string]bool{}}
		for _, tag := range t.Tags {
			g.tags[tag] = true
		}
		if g.All && a.fleetKey == nil {
			a.fleetKey = sync.OnceValue(func() []byte { return deriveKey(secret, fleetKeyLabel) })
		}
		session := sync.OnceValue(func() []byte { return deriveKey(secret, sessionKeyLabel) })
		a.tokens = append(a.tokens, tokenEntry{name: name, hash: sha256.Sum256([]byte(secret)), g: g, sessionKey: session})
	}
	return a, nil
}

var (
	errNoToken  = errors.New("a bearer token is required")
	errBadToken = errors.New("invalid bearer token")
)

// Check returns the grant of an Authorization header's bearer token (every tag, named
// "open", when no token is configured).
func (a *Auth) Check(header string) (*Grant, bool) {
	if a.open {
		return everything, true
	}
	tok, ok := strings.CutPrefix(header, "Bearer ")
	if !ok || tok == "" {
		return nil, false
	}
	return a.Token(tok)
}

// Token returns the grant of a token given otherwise than in a header (the console's
// sign-in form), compared in constant time as bearer tokens are.
func (a *Auth) Token(tok string) (*Grant, bool) {
	if a.open {
		return everything, true
	}
	h := sha256.Sum256([]byte(tok))
	var found *Grant
	for i := range a.tokens {
		if subtle.ConstantTimeCompare(h[:], a.tokens[i].hash[:]) == 1 {
			found = a.tokens[i].g
		}
	}
	return found, found != nil
}

// SessionKey returns the grant of the token named name (the first of that name) and the
// key signing the console's sessions of that token: a PBKDF2 derivation of the token's
// secret, the same on every instance configured with that token and secret, different
// once the secret changes. ok is false when no token has that name.
func (a *Auth) SessionKey(name string) (*Grant, []byte, bool) {
	for i := range a.tokens {
		if a.tokens[i].name == name {
			return a.tokens[i].g, a.tokens[i].sessionKey(), true
		}
	}
	return nil, nil, false
}

type grantKey struct{}

// FromContext returns the grant the Interceptor put in ctx: nothing granted when none.
func FromContext(ctx context.Context) *Grant {
	g, _ := ctx.Value(grantKey{}).(*Grant)
	if g == nil {
		return &Grant{} // nothing granted: a handler reached without the interceptor
	}
	return g
}

// Interceptor refuses RPCs without a valid token (UNAUTHENTICATED, nothing about tags)
// and puts the token's grant in the context for the handlers' per-tag check. A Status
// call without a token may carry a fleet signature (FleetHeader) instead; no other
// procedure accepts one.
func (a *Auth) Interceptor() connect.Interceptor {
	return connect.UnaryInterceptorFunc(func(next connect.UnaryFunc) connect.UnaryFunc {
		return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
			g, ok := a.Check(req.Header().Get("Authorization"))
			if !ok && req.Header().Get("Authorization") == "" && req.Spec().Procedure == idgenv1connect.IDServiceStatusProcedure &&
				a.CheckFleet(req.Header().Get(FleetHeader)) {
				g, ok = fleetGrant, true
			}
			if ok && g.only != "" && g.only != req.Spec().Procedure {
				ok = false // unreachable while only Status accepts a signature: kept as a guard
			}
			if !ok {
				err := errBadToken
				if req.Header().Get("Authorization") == "" {
					err = errNoToken
				}
				return nil, connect.NewError(connect.CodeUnauthenticated, err)
			}
			return next(context.WithValue(ctx, grantKey{}, g), req)
		}
	})
}

// HTTPAll lets through plain HTTP requests whose token grants every tag (or any request
// when no token is configured): for /metrics, whose labels name the tags.
func (a *Auth) HTTPAll(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g, ok := a.Check(r.Header.Get("Authorization"))
		switch {
		case !ok:
			w.Header().Set("WWW-Authenticate", `Bearer realm="idgen"`)
			http.Error(w, "unauthenticated: "+Refusal(r).Error(), http.StatusUnauthorized)
		case !g.All:
			http.Error(w, "permission denied: this token does not grant every tag", http.StatusForbidden)
		default:
			h.ServeHTTP(w, r)
		}
	})
}

// Refusal is the error of a request refused for its token: none given, or one not
// configured.
func Refusal(r *http.Request) error {
	if r.Header.Get("Authorization") == "" {
		return errNoToken
	}
	return errBadToken
}

// Open reports whether no token is configured: every caller may use every tag.
func (a *Auth) Open() bool { return a.open }

// GrantOf returns the grant of the request's bearer token (every tag, named "open", when
// no token is configured), for handlers beside the API (the console).
func (a *Auth) GrantOf(r *http.Request) (*Grant, bool) {
	return a.Check(r.Header.Get("Authorization"))
}

// Authorized reports whether the request's bearer token grants tag ("" for a token that
// must grant every tag), for handlers beside the API.
func (a *Auth) Authorized(r *http.Request, tag string) bool {
	g, ok := a.GrantOf(r)
	if !ok {
		return false
	}
	if tag == "" {
		return g.All
	}
	return g.Allows(tag)
}

// HasFleetKey reports whether a token granting every tag is configured, so that fleet
// signatures are made and checked, without deriving the key.
func (a *Auth) HasFleetKey() bool { return a.fleetKey != nil }

// FleetKey returns the key signing and checking the fleet's Status calls, derived at the
// first call (tens of milliseconds); nil when no token grants every tag.
func (a *Auth) FleetKey() []byte {
	if a.fleetKey == nil {
		return nil
	}
	return a.fleetKey()
}

// URLKey is the form of a base URL two instances are compared by: scheme and host are
// case-insensitive, a trailing slash is nothing.
func URLKey(s string) string {
	u, err := url.Parse(strings.TrimRight(s, "/"))
	if err != nil {
		return s
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host) + u.Path
}
