package server

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"connectrpc.com/connect"

	"github.com/idgen/idgen/cmd/idgen-server/internal/config"
)

// auth checks bearer tokens. Each configured token is kept as its SHA-256, and a
// presented token is hashed and compared with every one in constant time (no early
// exit), so neither a token's bytes nor its length nor which entry matched shows in the
// time taken.
type auth struct {
	open   bool // no token configured: every caller may use every tag
	tokens []tokenEntry
}

type tokenEntry struct {
	name string
	hash [sha256.Size]byte
	g    *Grant
	// sessionKey signs the console's sessions of this token: derived from the secret,
	// so a new secret ends them, and an instance without the secret cannot accept them.
	sessionKey []byte
}

// sessionKeyLabel is what a token's secret signs to make its session key (HMAC-SHA256
// keyed by the secret): a key for this one use, which shows nothing of the secret.
const sessionKeyLabel = "idgen-server console session key v1"

// Grant is what a token allows: every tag, or those named, and whether it may change
// tags (the console's admin forms).
type Grant struct {
	// Name is the token's name in the configuration ("open" when no token is
	// configured): who made a change, in the log.
	Name string
	// All says the token grants every tag; Admin, that it may also change them.
	All, Admin bool
	tags       map[string]bool
}

// Allows reports whether g grants tag; a nil Grant (no auth configured) grants all.
func (g *Grant) Allows(tag string) bool {
	return g == nil || g.All || g.tags[tag]
}

// everything is the grant of every call when no token is configured.
var everything = &Grant{Name: "open", All: true}

func newAuth(cfg *config.Config) (*auth, error) {
	a := &auth{open: len(cfg.Tokens) == 0}
	for i, t := range cfg.Tokens {
		secret, err := t.Secret()
		if err != nil {
			return nil, err
		}
		name := t.Name
		if name == "" {
			name = "tokens[" + strconv.Itoa(i) + "]"
		}
		g := &Grant{Name: name, All: len(t.Tags) == 0, Admin: t.Admin && len(t.Tags) == 0, tags: map[string]bool{}}
		for _, tag := range t.Tags {
			g.tags[tag] = true
		}
		mac := hmac.New(sha256.New, []byte(secret))
		mac.Write([]byte(sessionKeyLabel))
		a.tokens = append(a.tokens, tokenEntry{name: name, hash: sha256.Sum256([]byte(secret)), g: g, sessionKey: mac.Sum(nil)})
	}
	return a, nil
}

var (
	errNoToken  = errors.New("a bearer token is required")
	errBadToken = errors.New("invalid bearer token")
)

// check returns the grant of an Authorization header's bearer token.
func (a *auth) check(header string) (*Grant, bool) {
	if a.open {
		return everything, true
	}
	tok, ok := strings.CutPrefix(header, "Bearer ")
	if !ok || tok == "" {
		return nil, false
	}
	return a.token(tok)
}

// token returns the grant of a token.
func (a *auth) token(tok string) (*Grant, bool) {
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

// sessionKey returns the grant and session key of the token named name (the first of
// that name).
func (a *auth) sessionKey(name string) (*Grant, []byte, bool) {
	for i := range a.tokens {
		if a.tokens[i].name == name {
			return a.tokens[i].g, a.tokens[i].sessionKey, true
		}
	}
	return nil, nil, false
}

type grantKey struct{}

// grantOf returns the grant the interceptor put in ctx.
func grantOf(ctx context.Context) *Grant {
	g, _ := ctx.Value(grantKey{}).(*Grant)
	if g == nil {
		return &Grant{} // nothing granted: a handler reached without the interceptor
	}
	return g
}

// interceptor refuses RPCs without a valid token (UNAUTHENTICATED, nothing about tags)
// and puts the token's grant in the context for the handlers' per-tag check.
func (a *auth) interceptor() connect.Interceptor {
	return connect.UnaryInterceptorFunc(func(next connect.UnaryFunc) connect.UnaryFunc {
		return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
			g, ok := a.check(req.Header().Get("Authorization"))
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

// httpAll lets through plain HTTP requests whose token grants every tag (or any request
// when no token is configured): for /metrics, whose labels name the tags.
func (a *auth) httpAll(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g, ok := a.check(r.Header.Get("Authorization"))
		switch {
		case !ok:
			w.Header().Set("WWW-Authenticate", `Bearer realm="idgen"`)
			http.Error(w, "unauthenticated: "+errNoTokenOr(r).Error(), http.StatusUnauthorized)
		case !g.All:
			http.Error(w, "permission denied: this token does not grant every tag", http.StatusForbidden)
		default:
			h.ServeHTTP(w, r)
		}
	})
}

func errNoTokenOr(r *http.Request) error {
	if r.Header.Get("Authorization") == "" {
		return errNoToken
	}
	return errBadToken
}
