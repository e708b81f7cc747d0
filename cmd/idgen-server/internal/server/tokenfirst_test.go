package server_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/idgen/idgen/cmd/idgen-server/internal/testserver"
)

// TestTokenBeforeBody: an API call without a valid token is refused (401,
// unauthenticated in the call's protocol) from its headers alone, before the server
// reads or inflates its body: a caller who never sends the body gets the answer.
func TestTokenBeforeBody(t *testing.T) {
	s := testserver.Start(t, "stores:\n"+testserver.SQLite(t, "local")+`snowflake:
  lease: {store: local, ttl: 3s}
tokens: [{token: `+allToken+`}]
tags: [{name: id, kind: snowflake}]
limits: {body_timeout: 1h}
`)
	for _, auth := range []string{"", "Authorization: Bearer wrong-token-0123456789\r\n"} {
		c, err := net.Dial("tcp", s.Addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		io.WriteString(c, "POST /idgen.v1.IDService/Next HTTP/1.1\r\nHost: "+s.Addr+"\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Length: 60000\r\n"+auth+"\r\n")
		c.SetReadDeadline(time.Now().Add(30 * time.Second))
		res, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("%q: no answer before the body: %v", auth, err)
		}
		b, _ := io.ReadAll(io.LimitReader(res.Body, 1000))
		if res.StatusCode != http.StatusUnauthorized {
			t.Fatalf("%q: %d %s", auth, res.StatusCode, b)
		}
	}
}
