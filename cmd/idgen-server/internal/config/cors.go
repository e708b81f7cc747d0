package config

import (
	"net/url"
	"strings"
)

// CORS lets pages on other origins call the API from a browser: Connect, gRPC-Web,
// grpc.health.v1 and Leaf's paths, with a bearer token in the Authorization header.
// Cookies are never allowed across origins, so the console's session is not usable
// from another origin's page.
type CORS struct {
	// AllowedOrigins are the origins whose pages may call the API, each a scheme, host
	// and optional port ("https://app.example.com", "http://localhost:3000"), or "*"
	// for any origin, which a server without tokens refuses unless Insecure (any site's
	// page could take its IDs). Empty: no origin but the server's own (CORS off).
	AllowedOrigins []string `yaml:"allowed_origins"`
}

// Allows reports whether a page on origin may call the API.
func (c CORS) Allows(origin string) bool {
	if origin == "" {
		return false
	}
	for _, o := range c.AllowedOrigins {
		if o == "*" || strings.EqualFold(o, origin) {
			return true
		}
	}
	return false
}

// check refuses an origin that is not "*" nor scheme://host[:port].
func (c CORS) check() error {
	for i, o := range c.AllowedOrigins {
		if o == "*" {
			continue
		}
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
			u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil || o != u.Scheme+"://"+u.Host {
			return fieldErr("cors.allowed_origins", "%d: %q is not an origin: want scheme://host[:port] (https://app.example.com), or \"*\"", i, o)
		}
	}
	return nil
}

// splitOrigins reads the value of -cors-origins: origins separated by commas.
func splitOrigins(s string) []string {
	var out []string
	for _, o := range strings.Split(s, ",") {
		if o = strings.TrimSpace(o); o != "" {
			out = append(out, o)
		}
	}
	return out
}
