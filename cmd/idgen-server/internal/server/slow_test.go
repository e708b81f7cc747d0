package server_test

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/idgen/idgen/cmd/idgen-server/internal/testserver"
)

// slowConfig is a server with a short body timeout and room for two connections.
func slowConfig(t *testing.T) string {
	return "stores:\n" + testserver.SQLite(t, "local") + `snowflake:
  lease: {store: local, ttl: 3s}
tags: [{name: id, kind: snowflake}]
limits: {body_timeout: 300ms, max_connections: 2}
`
}

// TestSlowBodyCutOff: callers that send a request's headers and then its body a byte at
// a time, slowly (slowloris), are cut off once the body timeout passes, whatever the
// path: the server closes their connections.
func TestSlowBodyCutOff(t *testing.T) {
	s := testserver.Start(t, slowConfig(t))
	for _, path := range []string{"/idgen.v1.IDService/Next", "/login", "/nowhere"} {
		c, err := net.Dial("tcp", s.Addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := io.WriteString(c, "POST "+path+" HTTP/1.1\r\nHost: "+s.Addr+"\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"); err != nil {
			t.Fatal(err)
		}
		// The caller goes on sending a byte now and then; the server must hang up.
		closed := make(chan error, 1)
		go func() {
			_, err := io.Copy(io.Discard, c)
			closed <- err
		}()
		tick := time.NewTicker(50 * time.Millisecond)
		deadline := time.After(30 * time.Second)
	wait:
		for {
			select {
			case <-closed:
				break wait
			case <-tick.C:
				c.Write([]byte(" "))
			case <-deadline:
				t.Fatalf("POST %s: the slow body still holds its connection after 30 s (body timeout 300ms)", path)
			}
		}
		tick.Stop()
	}
}

// TestConnectionCap: with max_connections 2, two held connections keep a third from
// being served until one of them closes.
func TestConnectionCap(t *testing.T) {
	s := testserver.Start(t, slowConfig(t))
	// testserver.Start's own checks may hold a keep-alive connection: drop them.
	http.DefaultClient.CloseIdleConnections()
	var held []net.Conn
	for range 2 {
		c, err := net.Dial("tcp", s.Addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		// A request the server answers, so that the connection is surely accepted.
		io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
		res, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		held = append(held, c)
	}
	done := make(chan error, 1)
	go func() {
		tr := &http.Transport{DisableKeepAlives: true}
		defer tr.CloseIdleConnections()
		res, err := (&http.Client{Transport: tr}).Get(s.URL + "/healthz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode != http.StatusOK {
				err = errors.New(res.Status)
			}
		}
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("a third connection was served while two were held (max_connections 2): %v", err)
	case <-time.After(500 * time.Millisecond):
	}
	held[0].Close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the third connection was not served after one held closed")
	}
}
