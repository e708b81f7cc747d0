package idem_test

import (
	"bufio"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idgen/idgen/runtime/idem"
)

// keyServer is a server behind the middleware on a Memory store whose handler answers 201
// and records the keys it ran under.
type keyServer struct {
	*httptest.Server
	mu   sync.Mutex
	keys []string
}

func newKeyServer(t *testing.T) *keyServer {
	s := &keyServer{}
	mw, err := idem.New(idem.Config{Store: idem.NewMemory(), Scope: idem.SingleTenant, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	s.Server = httptest.NewServer(mw.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k, _ := idem.KeyFrom(r.Context())
		s.mu.Lock()
		s.keys = append(s.keys, k.Value)
		s.mu.Unlock()
		w.WriteHeader(http.StatusCreated)
	})))
	t.Cleanup(s.Close)
	return s
}

// send posts with the Idempotency-Key field lines given, one a line.
func (s *keyServer) send(t *testing.T, lines ...string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, s.URL, strings.NewReader("{}"))
	req.Header[idem.DefaultKeyHeader] = lines
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// TestKeyFieldLines: two Idempotency-Key field lines and the one line a proxy combines them
// into (RFC 9110 5.3) get the same answer, 400: a list is not a key. Neither key is
// claimed: each, sent alone afterwards, runs. Before, two lines were served under the first
// key and the combined line under the key "k-a, k-b".
func TestKeyFieldLines(t *testing.T) {
	s := newKeyServer(t)
	for _, lines := range [][]string{
		{"k-a", "k-b"},
		{"k-a, k-b"},
		{"k-a,k-b"},
		{`"k-a", "k-b"`},
		{"", "k-a"},
		{"k-a", ""},
		{`"k-a"`, `"k-b"`},
	} {
		resp, body := s.send(t, lines...)
		if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("Content-Type") != "application/problem+json" {
			t.Errorf("key lines %q: %d %s; want 400", lines, resp.StatusCode, body)
		}
	}
	if len(s.keys) != 0 {
		t.Fatalf("served under %q", s.keys)
	}
	for _, k := range []string{"k-a", "k-b"} {
		if resp, body := s.send(t, k); resp.StatusCode != http.StatusCreated || resp.Header.Get(idem.ReplayedHeader) != "" {
			t.Errorf("key %q alone after the refusals: %d %s replayed=%q; want a first run", k, resp.StatusCode, body, resp.Header.Get(idem.ReplayedHeader))
		}
	}
	// A comma inside a Structured Field string is part of one key.
	if resp, body := s.send(t, `"k-a, k-b"`); resp.StatusCode != http.StatusCreated {
		t.Errorf(`the quoted key "k-a, k-b": %d %s`, resp.StatusCode, body)
	}
	if want := []string{"k-a", "k-b", "k-a, k-b"}; strings.Join(s.keys, "|") != strings.Join(want, "|") {
		t.Errorf("served under %q, want %q", s.keys, want)
	}
}

// TestHijackReplay: a request whose handler took the connection (a protocol switch, 101)
// is not run again, and its retries get what can honestly be said of it: 422, a
// problem+json body saying its response cannot be replayed, Idempotent-Replayed and the
// warning, none of the handler's headers (no Upgrade). Before, retries got 200 and a body
// saying the response had been too large or streamed.
func TestHijackReplay(t *testing.T) {
	var runs atomic.Int64
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		runs.Add(1)
		w.Header().Set("Upgrade", "example/1")
		w.Header().Set("Connection", "Upgrade")
		c, rw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Errorf("Hijack through the middleware: %v", err)
			return
		}
		defer c.Close()
		rw.WriteString("HTTP/1.1 101 Switching Protocols\r\nUpgrade: example/1\r\nConnection: Upgrade\r\n\r\nhello")
		rw.Flush()
	})
	// The client reads the 101 before the handler returns: the retries wait for the key.
	mw, err := idem.New(idem.Config{Store: idem.NewMemory(), Scope: idem.SingleTenant, Wait: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(mw.Wrap(h))
	defer srv.Close()
	upgrade := func() (status int, header http.Header, body string) {
		c, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		io.WriteString(c, "POST / HTTP/1.1\r\nHost: x\r\nIdempotency-Key: up-1\r\nUpgrade: example/1\r\nConnection: Upgrade\r\nContent-Length: 2\r\n\r\n{}")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<10))
		return resp.StatusCode, resp.Header, string(b)
	}
	if status, _, _ := upgrade(); status != http.StatusSwitchingProtocols {
		t.Fatalf("first request: %d, want the handler's 101", status)
	}
	for i := range 2 {
		status, header, body := upgrade()
		var p struct {
			Status int    `json:"status"`
			Title  string `json:"title"`
			Detail string `json:"detail"`
		}
		if status != http.StatusUnprocessableEntity || header.Get("Content-Type") != "application/problem+json" ||
			json.Unmarshal([]byte(body), &p) != nil || p.Status != status || !strings.Contains(p.Detail, "connection") ||
			header.Get(idem.ReplayedHeader) != "true" || header.Get(idem.WarningHeader) == "" || header.Get("Upgrade") != "" {
			t.Errorf("retry %d: %d %v %s; want 422, a problem about the taken connection, replayed, no Upgrade", i, status, header, body)
		}
	}
	if n := runs.Load(); n != 1 {
		t.Errorf("the handler ran %d times", n)
	}
}
