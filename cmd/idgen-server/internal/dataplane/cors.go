package dataplane

import (
	"net/http"
	"strconv"
	"strings"

	connectcors "connectrpc.com/cors"
)

// corsMaxAge is how long a browser may keep a preflight's answer (Chromium keeps it at
// most 2 hours).
const corsMaxAge = 7200

// The headers of CORS answers: connectrpc.com/cors's lists (what Connect and gRPC-Web
// send and read), plus the API's own: the bearer token sent, Retry-After read.
var (
	corsMethods = strings.Join(connectcors.AllowedMethods(), ", ")
	corsHeaders = strings.Join(append(connectcors.AllowedHeaders(), "Authorization"), ", ")
	corsExposed = strings.Join(append(connectcors.ExposedHeaders(), "Retry-After"), ", ")
)

// apiPath reports whether path is the API's: the IDService, grpc.health.v1, reflection
// or Leaf's paths. The console, /metrics and the probes are not.
func apiPath(path string) bool {
	for _, p := range []string{"/idgen.v1.IDService/", "/" + HealthServiceName + "/", "/grpc.reflection.", "/api/segment/get/", "/api/snowflake/get/"} {
		if strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}

// withCORS lets pages on the configured origins call the API's paths: a preflight from
// an allowed origin is answered here (the browser sends it without the token), an
// answer to an allowed origin names it. Credentials (cookies) are never allowed, so the
// console's session cannot be used from another origin; the token goes in the
// Authorization header. Without origins configured it is h as is.
func (p *Plane) withCORS(h http.Handler) http.Handler {
	c := p.cfg.CORS
	if len(c.AllowedOrigins) == 0 {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if origin == "" || !apiPath(r.URL.Path) {
			h.ServeHTTP(w, r)
			return
		}
		hd := w.Header()
		hd.Add("Vary", "Origin")
		preflight := r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != ""
		if preflight {
			hd.Add("Vary", "Access-Control-Request-Method")
			hd.Add("Vary", "Access-Control-Request-Headers")
		}
		if !c.Allows(origin) {
			if preflight {
				http.Error(w, "origin not allowed (cors.allowed_origins)", http.StatusForbidden)
				return
			}
			h.ServeHTTP(w, r) // the browser keeps the answer from the page
			return
		}
		hd.Set("Access-Control-Allow-Origin", origin)
		if preflight {
			hd.Set("Access-Control-Allow-Methods", corsMethods)
			hd.Set("Access-Control-Allow-Headers", corsHeaders)
			hd.Set("Access-Control-Max-Age", strconv.Itoa(corsMaxAge))
			w.WriteHeader(http.StatusNoContent)
			return
		}
		hd.Set("Access-Control-Expose-Headers", corsExposed)
		h.ServeHTTP(w, r)
	})
}
