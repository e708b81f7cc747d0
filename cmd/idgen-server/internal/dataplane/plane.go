package dataplane

import (
	"log/slog"
	"net/http"
	"time"

	"connectrpc.com/connect"
	"connectrpc.com/grpcreflect"

	"github.com/idgen/idgen/cmd/idgen-server/internal/auth"
	"github.com/idgen/idgen/cmd/idgen-server/internal/config"
	"github.com/idgen/idgen/cmd/idgen-server/internal/tags"
	v1 "github.com/idgen/idgen/idgenclient/idgenv1"
	"github.com/idgen/idgen/idgenclient/idgenv1/idgenv1connect"
)

// Named defaults of the serving path.
const (
	// CallTimeout bounds the work of one call: a store that does not answer makes it
	// UNAVAILABLE, not a hang.
	CallTimeout = 3 * time.Second
	// retryAfter is the hint an UNAVAILABLE answer carries.
	retryAfter = time.Second
	// compressMinBytes is the smallest answer compressed for a client that accepts it.
	compressMinBytes = 16 << 10
)

// Backend is what the data plane needs of the server that owns the tags. Its methods
// are safe for concurrent use.
type Backend interface {
	// Tag returns the served tag named name.
	Tag(name string) (*tags.Tag, bool)
	// Tags returns the served tags, in order.
	Tags() []*tags.Tag
	// Ready reports whether the server should get traffic, and why not.
	Ready() (bool, string)
	// Draining reports whether the server is shutting down.
	Draining() bool
	// Status reports the server as g may see it (every tag for nil).
	Status(g *auth.Grant) *v1.StatusResponse
}

// Options are what a Plane is built from.
type Options struct {
	// Backend serves the tags; required.
	Backend Backend
	// Config gives the limits, the CORS origins and leaf_snowflake_tag; required.
	Config *config.Config
	// Auth checks the calls' tokens; required.
	Auth *auth.Auth
	// Log receives the causes of failed calls; required.
	Log *slog.Logger
	// Interceptor, when set, sees every RPC of the IDService before Auth's, refused
	// ones included (metrics).
	Interceptor connect.Interceptor
	// Counted, when set, wraps each of Leaf's paths, named "leaf/segment" and
	// "leaf/snowflake", to record its calls (metrics).
	Counted func(name string, h http.Handler) http.Handler
}

// Plane is the data plane of one server. Safe for concurrent use.
type Plane struct {
	b           Backend
	cfg         *config.Config
	auth        *auth.Auth
	log         *slog.Logger
	interceptor connect.Interceptor
	counted     func(name string, h http.Handler) http.Handler
}

// New returns the data plane of o.
func New(o Options) *Plane {
	p := &Plane{b: o.Backend, cfg: o.Config, auth: o.Auth, log: o.Log, interceptor: o.Interceptor, counted: o.Counted}
	if p.counted == nil {
		p.counted = func(_ string, h http.Handler) http.Handler { return h }
	}
	return p
}

// Mount hangs the API on mux: the IDService at /idgen.v1.IDService/, grpc.health.v1,
// reflection, and Leaf's paths GET /api/segment/get/{tag} and
// GET /api/snowflake/get/{tag}.
func (p *Plane) Mount(mux *http.ServeMux) {
	interceptors := []connect.Interceptor{p.auth.Interceptor()}
	if p.interceptor != nil {
		interceptors = append([]connect.Interceptor{p.interceptor}, interceptors...)
	}
	opts := []connect.HandlerOption{
		connect.WithReadMaxBytes(p.cfg.Limits.MaxRequestBytes),
		// Connect and gRPC clients accept gzip; an ID's answer is a few bytes, which
		// compressing would cost more CPU than it saves.
		connect.WithCompressMinBytes(compressMinBytes),
		connect.WithInterceptors(interceptors...),
	}
	path, h := idgenv1connect.NewIDServiceHandler(&api{p: p}, opts...)
	mux.Handle(path, h)
	// Health and reflection answer without a token: the same bound on what a request may
	// inflate to (a gzip body is small on the wire) holds for them.
	bounded := connect.WithReadMaxBytes(p.cfg.Limits.MaxRequestBytes)
	mux.Handle(p.healthHandler(bounded))
	reflector := grpcreflect.NewStaticReflector(idgenv1connect.IDServiceName, HealthServiceName)
	mux.Handle(grpcreflect.NewHandlerV1(reflector, bounded))
	mux.Handle(grpcreflect.NewHandlerV1Alpha(reflector, bounded))
	mux.Handle("GET /api/segment/get/{tag}", p.leaf(v1.Kind_KIND_SEGMENT))
	mux.Handle("GET /api/snowflake/get/{tag}", p.leaf(v1.Kind_KIND_SNOWFLAKE))
}

// Handler returns h (the server's mux) behind the request size limit, with gRPC-Web's
// text mode, the token check of the API's calls before their bodies are read, and CORS
// outside that check (a browser's preflight carries no token, and a refusal must name
// the origin for the page to read it).
func (p *Plane) Handler(h http.Handler) http.Handler {
	limit := int64(p.cfg.Limits.MaxRequestBytes)
	return p.withCORS(p.tokenFirst(withGRPCWebText(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The API's calls are answered by connect-go, which refuses a body over the
		// limit in each protocol's own form (RESOURCE_EXHAUSTED); only other paths get a
		// bare 413 from the declared length.
		if r.ContentLength > limit && !apiPath(r.URL.Path) {
			http.Error(w, "request too large", http.StatusRequestEntityTooLarge)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, limit)
		h.ServeHTTP(w, r)
	}))))
}

// Edge returns h (the Handler) as the http.Server serves it: behind the loopback Host
// check of a server without tokens, each request's body bounded by
// limits.body_timeout.
func (p *Plane) Edge(h http.Handler) http.Handler {
	return p.loopbackHosts(p.bodyDeadline(h))
}
