package dataplane

import (
	"net"
	"net/http"
	"strings"
)

// loopbackHosts answers only requests whose Host is a loopback name or address when no
// token is configured (config allows that on a loopback listener only): a page on a
// name its owner rebinds to 127.0.0.1 (DNS rebinding) sends its own Host, and is refused
// with 421 Misdirected Request before any handler reads the open server's data.
func (p *Plane) loopbackHosts(h http.Handler) http.Handler {
	if !p.auth.Open() {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !loopbackHost(r.Host) {
			http.Error(w, "misdirected request: a server without tokens answers only to loopback host names (localhost, 127.0.0.1, [::1])", http.StatusMisdirectedRequest)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// loopbackHost reports whether a Host header names this machine's loopback: localhost
// or a name under it, or a loopback IP address, with or without a port.
func loopbackHost(host string) bool {
	// The Host every local client sends, without parsing (the parse was 1.25% of the
	// server's CPU on Leaf's path).
	for _, name := range [...]string{"127.0.0.1", "localhost"} {
		if rest, ok := strings.CutPrefix(host, name); ok && (rest == "" || rest[0] == ':' && len(rest) <= 6 && isDigits(rest[1:])) {
			return true
		}
	}
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
