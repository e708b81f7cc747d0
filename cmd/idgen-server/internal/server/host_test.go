package server_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"connectrpc.com/connect"

	"github.com/idgen/idgen/cmd/idgen-server/internal/testserver"
	v1 "github.com/idgen/idgen/idgenclient/idgenv1"
)

// TestOpenLoopbackHost: a server with no token (loopback only) answers only requests
// whose Host is a loopback name or address, so that a page whose DNS name was rebound to
// 127.0.0.1 cannot read it from a browser.
func TestOpenLoopbackHost(t *testing.T) {
	s := testserver.Start(t, "stores:\n"+testserver.SQLite(t, "local")+"snowflake:\n  lease: {store: local, ttl: 3s}\ntags: [{name: id, kind: snowflake}]\n")
	_, port, _ := strings.Cut(s.Addr, ":")
	for _, c := range []struct {
		host string
		ok   bool
	}{
		{"127.0.0.1:" + port, true},
		{"localhost:" + port, true},
		{"localhost", true},
		{"app.localhost:" + port, true},
		{"[::1]:" + port, true},
		{"evil.example:" + port, false},
		{"evil.example", false},
		{"127.0.0.1.evil.example", false},
		{"localhost.evil.example", false},
	} {
		req, _ := http.NewRequest(http.MethodGet, s.URL+"/healthz", nil)
		req.Host = c.host
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if (res.StatusCode != http.StatusMisdirectedRequest) != c.ok {
			t.Errorf("Host %s: %d", c.host, res.StatusCode)
		}
	}
}

// TestStatusRateByGrant: a token limited to some tags sees no figure of every tag's
// traffic in Status, only its tags' own.
func TestStatusRateByGrant(t *testing.T) {
	s := testserver.Start(t, "stores:\n"+testserver.SQLite(t, "local")+`snowflake:
  lease: {store: local, ttl: 3s}
tokens:
  - {name: all, token: `+allToken+`}
  - {name: ids, token: ids-only-token-0123456789, tags: [id]}
tags: [{name: id, kind: snowflake}, {name: other, kind: snowflake}]
console: {rate_interval: 100ms}
`)
	testserver.WaitFor(t, "a rate figure", 30e9, func() error {
		if len(s.Status(nil).Rate) == 0 {
			return context.DeadlineExceeded
		}
		return nil
	})
	r, err := client(s.URL, "ids-only-token-0123456789").Status(context.Background(), connect.NewRequest(&v1.StatusRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Msg.Rate) != 0 || len(r.Msg.Tags) != 1 {
		t.Fatalf("a token of one tag sees %d rate figures over every tag and %d tags", len(r.Msg.Rate), len(r.Msg.Tags))
	}
	r, err = client(s.URL, allToken).Status(context.Background(), connect.NewRequest(&v1.StatusRequest{}))
	if err != nil || len(r.Msg.Rate) == 0 {
		t.Fatalf("the all-tags token: %v, %v", r, err)
	}
}
