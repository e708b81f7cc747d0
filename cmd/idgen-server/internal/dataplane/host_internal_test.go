package dataplane

import "testing"

// loopbackHost's fast path for the common Hosts agrees with the parse it skips.
func TestLoopbackHost(t *testing.T) {
	for host, want := range map[string]bool{
		"127.0.0.1": true, "127.0.0.1:7070": true, "127.0.0.1:": true, "localhost": true,
		"localhost:7070": true, "LocalHost:7070": true, "api.localhost": true, "[::1]:7070": true,
		"[::1]": true, "127.0.0.2:80": true, "localhost.:80": true,
		"127.0.0.10": true, "128.0.0.1": false, "127.0.0.1.evil.example": false, "127.0.0.1.evil.example:80": false,
		"localhost.evil.example": false, "localhostevil:80": false, "evil.example": false,
		"10.0.0.1:7070": false, "": false, "localhost:80:80": false,
	} {
		if got := loopbackHost(host); got != want {
			t.Errorf("loopbackHost(%q) = %v, want %v", host, got, want)
		}
	}
}
