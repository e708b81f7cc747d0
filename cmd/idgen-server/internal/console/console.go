// Package console is idgen-server's web console: the fleet's instances and leases, this
// instance's tags and buffers, and a decoder of IDs, served at "/" from templates and
// files embedded in the binary (no CDN, no font, no build step), behind the API's tokens.
//
// Pages are rendered on the server with html/template and work without JavaScript; a
// little plain JavaScript (static/console.js) refreshes the fleet and tags every few
// seconds and shrinks the lease bars between refreshes. A visitor signs in with a token
// (the login form sets a Secure, HttpOnly, SameSite=Strict session cookie, signed with
// a key derived from the token's secret, so that every instance of the fleet accepts
// it) or sends it as a bearer token; without one the console shows the login form and
// nothing else. Only a token with admin: true sees the forms that change tags, which
// carry a per-session token and are refused cross-site (http.CrossOriginProtection).
// Changes are kept in the stores the tags live in, so every instance lists and applies
// them; a visitor sees the changes of the tags their token grants. A store's failure is
// told in the console's words and its cause logged, never shown (no address, table or
// driver message reaches the browser).
package console

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/idgen/idgen/cmd/idgen-server/internal/auth"
	"github.com/idgen/idgen/cmd/idgen-server/internal/control"
	"github.com/idgen/idgen/cmd/idgen-server/internal/dataplane"
	"github.com/idgen/idgen/cmd/idgen-server/internal/server"
	v1 "github.com/idgen/idgen/idgenclient/idgenv1"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Named defaults of the console.
const (
	// SessionTTL is how long a sign-in lasts: signing out deletes the cookie, but a copy
	// of it stays valid until then (see sessions).
	SessionTTL = 12 * time.Hour
	// CookieName is the session cookie's name over plain HTTP (from a loopback host):
	// browsers refuse a __Host- cookie from a page that is not HTTPS.
	CookieName = "idgen_console"
	// HostCookieName is the session cookie's name over TLS: for its __Host- prefix a
	// browser keeps it only if it is Secure, with Path=/ and no Domain, set by this very
	// host, so that another host of the domain cannot set or shadow it.
	HostCookieName = "__Host-" + CookieName
	// FleetTimeout bounds the fleet page's calls to the peers.
	FleetTimeout = 3 * time.Second
)

// Console serves the console of one Server. Safe for concurrent use.
type Console struct {
	s    *server.Server
	auth *auth.Auth // the server's, built once from its configuration
	log  *slog.Logger
	tmpl map[string]*template.Template
	now  func() time.Time

	sessions sessions
	throttle throttle
}

// New returns the console of s, logging changes to log.
func New(s *server.Server, log *slog.Logger) (*Console, error) {
	c := &Console{s: s, auth: s.Auth(), log: log, now: time.Now, tmpl: map[string]*template.Template{}}
	c.sessions.keys = c.auth.SessionKey
	base, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html")
	if err != nil {
		return nil, fmt.Errorf("console: %w", err)
	}
	for _, page := range []string{"login", "fleet", "tags", "decode", "confirm"} {
		t, err := template.Must(base.Clone()).ParseFS(templateFS, "templates/"+page+".html")
		if err != nil {
			return nil, fmt.Errorf("console: %w", err)
		}
		c.tmpl[page] = t
	}
	return c, nil
}

// Mount serves the console on mux: the pages at "/", "/tags" and "/decode", the sign-in
// at "/login" and "/logout", the admin forms under "/tags/", the files under "/static/".
func (c *Console) Mount(mux *http.ServeMux) {
	static, _ := fs.Sub(staticFS, "static")
	files := http.StripPrefix("/static/", http.FileServerFS(static))
	cop := http.NewCrossOriginProtection()
	handle := func(pattern string, h http.HandlerFunc) {
		mux.Handle(pattern, headers(cop.Handler(h)))
	}
	mux.Handle("GET /static/", headers(files))
	handle("GET /{$}", c.fleet)
	handle("GET /tags", c.tags)
	handle("GET /decode", c.decode)
	handle("POST /decode", c.decode)
	handle("GET /login", c.loginPage)
	handle("POST /login", c.login)
	handle("POST /logout", c.logout)
	handle("POST /tags/create", c.admin(c.create))
	handle("POST /tags/step", c.admin(c.setStep))
}

// headers sets what every answer of the console carries: a policy that lets the page
// load only its own files, and no caching of pages that hold data.
func headers(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("Referrer-Policy", "no-referrer")
		hd.Set("X-Frame-Options", "DENY")
		if strings.HasPrefix(r.URL.Path, "/static/") {
			hd.Set("Cache-Control", "no-cache")
		} else {
			hd.Set("Cache-Control", "no-store")
		}
		h.ServeHTTP(w, r)
	})
}

// visitor is who asks: the grant of their token, and the session it came from (nil for
// a bearer token or an open server).
type visitor struct {
	g    *auth.Grant
	sess *session
}

// who returns the visitor of r: an open server's everyone, a bearer token, or a
// session cookie.
func (c *Console) who(r *http.Request) (visitor, bool) {
	if c.auth.Open() {
		g, _ := c.auth.GrantOf(r)
		return visitor{g: g}, true
	}
	if r.Header.Get("Authorization") != "" {
		g, ok := c.auth.GrantOf(r)
		return visitor{g: g}, ok
	}
	if ck, err := r.Cookie(cookieName(r)); err == nil {
		if s := c.sessions.get(ck.Value, c.now()); s != nil {
			return visitor{g: s.g, sess: s}, true
		}
	}
	return visitor{}, false
}

// page is what every page's template gets.
type page struct {
	Title   string
	Nav     string // the page's name in the navigation
	Who     string // the token's name, "" on an open server
	Admin   bool
	CSRF    string // the session's form token
	Session bool   // signed in with the form (a logout button)
	Flash   string
	Error   string
	Data    any
}

func (c *Console) render(w http.ResponseWriter, status int, name string, p page) {
	var b strings.Builder
	if err := c.tmpl[name].ExecuteTemplate(&b, "layout.html", p); err != nil {
		c.log.Error("console: rendering a page", "page", name, "err", err)
		http.Error(w, "console: the page could not be rendered", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write([]byte(b.String()))
}

// pageFor fills the visitor's part of a page.
func (c *Console) pageFor(v visitor, title, nav string) page {
	p := page{Title: title, Nav: nav, Admin: v.g.Admin}
	if !c.auth.Open() {
		p.Who = v.g.Name
	}
	if v.sess != nil {
		p.CSRF, p.Session = v.sess.csrf, true
	}
	return p
}

// gate returns the visitor, or answers with the login form (401) and false: no data
// is shown to a visitor without a token.
func (c *Console) gate(w http.ResponseWriter, r *http.Request) (visitor, bool) {
	v, ok := c.who(r)
	if !ok {
		c.renderLogin(w, r, http.StatusUnauthorized, "")
	}
	return v, ok
}

// fleet serves the fleet page: every instance, its lease, rate and readiness.
func (c *Console) fleet(w http.ResponseWriter, r *http.Request) {
	v, ok := c.gate(w, r)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), FleetTimeout)
	defer cancel()
	p := c.pageFor(v, "Fleet", "fleet")
	p.Data = fleetView(c.s.Fleet(ctx), c.now())
	c.render(w, http.StatusOK, "fleet", p)
}

// tags serves this instance's tags, their buffers and, for an admin, the forms that
// change them.
func (c *Console) tags(w http.ResponseWriter, r *http.Request) {
	v, ok := c.gate(w, r)
	if !ok {
		return
	}
	p := c.pageFor(v, "Tags", "tags")
	p.Flash = c.flash(r.URL.Query(), v.g)
	p.Data = c.tagsData(r.Context(), v, &p)
	c.render(w, http.StatusOK, "tags", p)
}

// Messages of the Tags page for a store's failure, whose cause (a store's address, a
// driver's message) is logged and never shown.
const (
	msgChangesUnread = "Some changes could not be read: a store did not answer. The cause is in the server's log."
	msgStepFailed    = "Step not changed: its store could not keep the change. The cause is in the server's log."
	msgCreateFailed  = "Not created: the tag store could not create the tag. The cause is in the server's log."
	msgStepMaybe     = "The store did not confirm the step change in time: it may have been kept, and then every instance applies it within %d s. Check the change list below before trying again."
	msgCreateMaybe   = "The tag store did not confirm the new tag in time: it may have been created, and then every instance serves it within %d s. Check the tags and the change list below before trying again."
)

// tagsData is the Tags page's data: the tags v may see, and the changes of the fleet to
// those tags (read from the stores: when one does not answer, p.Error says so, and the
// log says why).
func (c *Console) tagsData(ctx context.Context, v visitor, p *page) tagsData {
	ctx, cancel := context.WithTimeout(ctx, control.StoreTimeout)
	defer cancel()
	changes, err := c.s.Admin().Logs.Recent(ctx)
	if err != nil {
		c.log.Warn("console: reading the changes", "err", err)
		if p.Error == "" {
			p.Error = msgChangesUnread
		}
	}
	return tagsView(c.s.Status(v.g), c.s.Admin().StoreName, visible(changes, v.g), c.now())
}

// visible returns the changes of the tags g grants: a token limited to some tags sees
// neither the others' changes nor who made them.
func visible(changes []control.Change, g *auth.Grant) []control.Change {
	out := changes[:0:0]
	for _, ch := range changes {
		if g.Allows(ch.Tag) {
			out = append(out, ch)
		}
	}
	return out
}

// refusal returns what the Tags page says of err, from CreateSegmentTag or SetStep: the
// refusal itself when the admin can act on it (its message names no store address or
// driver), else ok false: a store's error, which is logged and never shown.
func refusal(err error) (msg string, ok bool) {
	for _, e := range []error{control.ErrBadStep, control.ErrTagExists, control.ErrUnknownTag, control.ErrNotSegment, control.ErrNoTagStore, control.ErrInvalidInput} {
		if errors.Is(err, e) {
			return strings.TrimPrefix(err.Error(), "control: "), true
		}
	}
	return "", false
}

// decodeData is the decode page's data: the form's values and the result or error.
type decodeData struct {
	ID, Zone string
	Zones    []string
	Result   *decodeResult
	Problem  *dataplane.DecodeError
}

// decode serves the decoder: GET with or without ?id=, and the form's POST, which works
// with JavaScript off.
func (c *Console) decode(w http.ResponseWriter, r *http.Request) {
	v, ok := c.gate(w, r)
	if !ok {
		return
	}
	p := c.pageFor(v, "Decode", "decode")
	d := decodeData{ID: r.FormValue("id"), Zone: strings.TrimSpace(r.FormValue("zone")), Zones: zones}
	status := http.StatusOK
	if d.ID != "" || r.Method == http.MethodPost {
		zone, err := loadZone(d.Zone)
		if err != nil {
			p.Error = err.Error()
			status = http.StatusBadRequest
		} else if res, err := c.s.Decode(v.g, d.ID, zone); err != nil {
			var de *dataplane.DecodeError
			if !errors.As(err, &de) {
				de = &dataplane.DecodeError{Input: d.ID, Reason: dataplane.ReasonNotAnID, Detail: err.Error()}
			}
			d.Problem = de
			status = http.StatusUnprocessableEntity
		} else {
			d.Result = resultView(res, zone)
			if res.Kind != v1.Kind_KIND_SEGMENT && isDecimal(d.ID) {
				d.Result.Note = c.segmentNote(v.g)
			}
		}
	}
	p.Data = d
	c.render(w, status, "decode", p)
}

// segmentNote says, for a decimal ID read as a snowflake ID, which segment tags it could
// be a counter of instead: a decimal alone does not tell them apart.
func (c *Console) segmentNote(g *auth.Grant) string {
	var names []string
	for _, t := range c.s.Status(g).Tags {
		if t.Kind == v1.Kind_KIND_SEGMENT {
			names = append(names, t.Name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	return "Read as a snowflake ID. If it came from a segment tag (" + strings.Join(names, ", ") + "), it is a counter and holds no time or worker."
}

func isDecimal(s string) bool {
	s = strings.TrimSpace(s)
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// renderLogin answers with the login form, and why the last try failed.
func (c *Console) renderLogin(w http.ResponseWriter, r *http.Request, status int, problem string) {
	next := r.URL.Path
	if r.Method != http.MethodGet || r.URL.Path == "/login" {
		next = r.FormValue("next")
	}
	p := page{Title: "Sign in", Nav: "login", Error: problem, Data: loginData{Next: safeNext(next), Insecure: !secureContext(r)}}
	c.render(w, status, "login", p)
}

type loginData struct {
	Next     string
	Insecure bool // the cookie is Secure and this is plain HTTP to another host than loopback
}

func (c *Console) loginPage(w http.ResponseWriter, r *http.Request) {
	if _, ok := c.who(r); ok {
		http.Redirect(w, r, safeNext(r.FormValue("next")), http.StatusSeeOther)
		return
	}
	c.renderLogin(w, r, http.StatusOK, "")
}

// login checks the form's token and starts a session.
func (c *Console) login(w http.ResponseWriter, r *http.Request) {
	if d := c.throttle.wait(r, c.now()); d > 0 {
		c.log.Warn("console: sign-in refused, too many wrong tokens", "remote", r.RemoteAddr, "for", d)
		w.Header().Set("Retry-After", retryAfter(d))
		c.renderLogin(w, r, http.StatusTooManyRequests, "Too many wrong tokens: try again in "+retryAfter(d)+" s.")
		return
	}
	g, ok := c.auth.Token(r.PostFormValue("token"))
	if !ok || c.auth.Open() {
		c.throttle.fail(r, c.now())
		c.log.Warn("console: sign-in refused", "remote", r.RemoteAddr)
		c.renderLogin(w, r, http.StatusUnauthorized, "That token is not valid.")
		return
	}
	sess := c.sessions.add(g, c.now())
	if sess == nil {
		c.log.Error("console: no session key for a token", "who", g.Name)
		c.renderLogin(w, r, http.StatusInternalServerError, "This token cannot sign in here.")
		return
	}
	http.SetCookie(w, &http.Cookie{
		Name: cookieName(r), Value: sess.value, Path: "/", MaxAge: int(SessionTTL / time.Second),
		Secure: true, HttpOnly: true, SameSite: http.SameSiteStrictMode,
	})
	c.log.Info("console: signed in", "who", g.Name, "admin", g.Admin, "remote", r.RemoteAddr)
	http.Redirect(w, r, safeNext(r.PostFormValue("next")), http.StatusSeeOther)
}

// logout deletes the session cookie from the browser (the form's token must match
// it). Nothing is kept of a session, so a copy of the cookie stays valid until it
// expires.
func (c *Console) logout(w http.ResponseWriter, r *http.Request) {
	v, ok := c.who(r)
	if ok && v.sess != nil && !v.sess.checkCSRF(r.PostFormValue("csrf")) {
		http.Error(w, "console: the form's token does not match your session: reload the page", http.StatusForbidden)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: cookieName(r), Value: "", Path: "/", MaxAge: -1, Secure: true, HttpOnly: true, SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}

// admin lets through only an admin's forms: signed in with an admin token (or sending
// it as a bearer token, which no other site can make a browser send), and, for a
// session, with the session's form token.
func (c *Console) admin(h func(http.ResponseWriter, *http.Request, visitor)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		v, ok := c.who(r)
		switch {
		case !ok:
			http.Error(w, "console: sign in first", http.StatusUnauthorized)
		case !v.g.Admin:
			http.Error(w, "console: this token may not change tags (it needs admin: true)", http.StatusForbidden)
		case v.sess != nil && !v.sess.checkCSRF(r.PostFormValue("csrf")):
			c.log.Warn("console: admin form without the session's token refused", "who", v.g.Name, "remote", r.RemoteAddr)
			http.Error(w, "console: the form's token does not match your session: reload the page", http.StatusForbidden)
		default:
			h(w, r, v)
		}
	}
}

// confirmData is the confirmation page of a change: what it will do, and the form that
// does it.
type confirmData struct {
	Action string      // the form's URL
	What   string      // the change in words
	Fields [][2]string // the hidden fields that repeat the change
}

// create creates a segment tag: the first POST asks for confirmation, the second
// (confirm=yes) does it.
func (c *Console) create(w http.ResponseWriter, r *http.Request, v visitor) {
	name := strings.TrimSpace(r.PostFormValue("name"))
	first, err1 := strconv.ParseInt(strings.TrimSpace(r.PostFormValue("start")), 10, 64)
	step, err2 := strconv.ParseInt(strings.TrimSpace(r.PostFormValue("step")), 10, 64)
	if err1 != nil || err2 != nil {
		c.tagsError(w, r, v, "Start and step must be whole numbers.")
		return
	}
	what := fmt.Sprintf("create segment tag %q in store %q, first ID %d, step %d", name, c.s.Admin().StoreName, first, step)
	if r.PostFormValue("confirm") != "yes" {
		c.confirm(w, v, "/tags/create", what, [][2]string{{"name", name}, {"start", strconv.FormatInt(first, 10)}, {"step", strconv.FormatInt(step, 10)}})
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), control.StoreTimeout)
	defer cancel()
	if err := c.s.Admin().CreateSegmentTag(ctx, v.g.Name, name, first, step); err != nil {
		c.tagsError(w, r, v, c.changeFailed(v, what, err, "Not created: ", msgCreateMaybe, msgCreateFailed))
		return
	}
	c.record(v, r, what)
	http.Redirect(w, r, "/tags?done=created&tag="+url.QueryEscape(name), http.StatusSeeOther)
}

// changeFailed logs why the change what by v failed and returns what the page says: a
// refusal the admin can act on after refused; maybe (a format of the refresh interval in
// seconds) when the store may have kept it; failed for any other failure of the store,
// whose cause only the log holds.
func (c *Console) changeFailed(v visitor, what string, err error, refused, maybe, failed string) string {
	if msg, ok := refusal(err); ok {
		c.log.Warn("console: change refused", "who", v.g.Name, "change", what, "err", err)
		return refused + msg
	}
	if errors.Is(err, control.ErrMaybeKept) {
		c.log.Error("console: change not confirmed by the store", "who", v.g.Name, "change", what, "err", err)
		return fmt.Sprintf(maybe, int(control.TagRefresh/time.Second))
	}
	c.log.Error("console: change failed in the store", "who", v.g.Name, "change", what, "err", err)
	return failed
}

// setStep changes a segment tag's step on every instance that serves it from the same
// store, after confirmation.
func (c *Console) setStep(w http.ResponseWriter, r *http.Request, v visitor) {
	name := strings.TrimSpace(r.PostFormValue("tag"))
	step, err := strconv.ParseInt(strings.TrimSpace(r.PostFormValue("step")), 10, 64)
	if err != nil {
		c.tagsError(w, r, v, "The step must be a whole number.")
		return
	}
	what := fmt.Sprintf("set the step of tag %q to %d on every instance that serves it from its store", name, step)
	if r.PostFormValue("confirm") != "yes" {
		c.confirm(w, v, "/tags/step", what, [][2]string{{"tag", name}, {"step", strconv.FormatInt(step, 10)}})
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), control.StoreTimeout)
	defer cancel()
	if err := c.s.Admin().SetStep(ctx, v.g.Name, name, step); err != nil {
		c.tagsError(w, r, v, c.changeFailed(v, what, err, "Step not changed: ", msgStepMaybe, msgStepFailed))
		return
	}
	c.record(v, r, what)
	http.Redirect(w, r, "/tags?done=step&tag="+url.QueryEscape(name), http.StatusSeeOther)
}

// flash is the message after a change's redirect, made here from a tag the visitor
// may see rather than taken from the link, so a link cannot put words on the page.
func (c *Console) flash(q url.Values, g *auth.Grant) string {
	tag := q.Get("tag")
	if !g.Allows(tag) || !c.s.Serves(tag) {
		return ""
	}
	switch q.Get("done") {
	case "created":
		return "Created segment tag " + tag + "."
	case "step":
		return "Changed the step of " + tag + ": this instance's next reservation uses it, the other instances' within " + strconv.Itoa(int(control.TagRefresh/time.Second)) + " s."
	}
	return ""
}

func (c *Console) confirm(w http.ResponseWriter, v visitor, action, what string, fields [][2]string) {
	p := c.pageFor(v, "Confirm", "tags")
	p.Data = confirmData{Action: action, What: what, Fields: fields}
	c.render(w, http.StatusOK, "confirm", p)
}

// tagsError shows the Tags page with a refusal.
func (c *Console) tagsError(w http.ResponseWriter, r *http.Request, v visitor, msg string) {
	p := c.pageFor(v, "Tags", "tags")
	p.Error = msg
	p.Data = c.tagsData(r.Context(), v, &p)
	c.render(w, http.StatusUnprocessableEntity, "tags", p)
}

// record logs a change with who made it. The server kept it in the tag's store, from
// which every instance's Tags page lists it.
func (c *Console) record(v visitor, r *http.Request, what string) {
	c.log.Info("console: change", "who", v.g.Name, "change", what, "remote", r.RemoteAddr)
}

// safeNext keeps a redirect after sign-in on this site: an absolute path of printable
// ASCII with no backslash, never another host. Browsers drop tabs and newlines from a
// URL and read a backslash as a slash, so "/\t/evil.example" and "/\\evil.example" would
// name another host; anything but a plain path goes to "/".
func safeNext(next string) string {
	if len(next) < 1 || next[0] != '/' || strings.HasPrefix(next, "/login") {
		return "/"
	}
	if len(next) > 1 && next[1] == '/' {
		return "/"
	}
	for i := 0; i < len(next); i++ {
		if b := next[i]; b <= ' ' || b >= 0x7f || b == '\\' {
			return "/"
		}
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || !strings.HasPrefix(u.Path, "/") {
		return "/"
	}
	return next
}

// cookieName is the name of the session cookie for r: HostCookieName over TLS, else
// CookieName. Only that name is read: over TLS a cookie under the plain name, which any
// host of the domain (or a page over plain HTTP) may have set, is ignored.
func cookieName(r *http.Request) string {
	if r.TLS != nil {
		return HostCookieName
	}
	return CookieName
}

// secureContext reports whether a browser keeps a Secure cookie set by the answer to r:
// over TLS, or from a loopback host.
func secureContext(r *http.Request) bool {
	if r.TLS != nil {
		return true
	}
	host := r.Host
	if h, _, err := splitHost(host); err == nil {
		host = h
	}
	return host == "localhost" || strings.HasPrefix(host, "127.") || host == "::1" || host == "[::1]"
}

func splitHost(hostport string) (string, string, error) {
	i := strings.LastIndexByte(hostport, ':')
	if i < 0 || strings.HasSuffix(hostport, "]") {
		return hostport, "", errors.New("no port")
	}
	return strings.Trim(hostport[:i], "[]"), hostport[i+1:], nil
}
