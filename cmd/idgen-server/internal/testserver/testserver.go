// Package testserver starts idgen-servers for tests: in this process on a loopback port
// of their own (Start), and the stores a test may stop (its own etcd, Redis and
// PostgreSQL, each on its own port and data directory).
package testserver

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/idgen/idgen/cmd/idgen-server/internal/config"
	"github.com/idgen/idgen/cmd/idgen-server/internal/console"
	"github.com/idgen/idgen/cmd/idgen-server/internal/server"
)

// Server is a running idgen-server.
type Server struct {
	*server.Server
	// URL is the base URL: http://127.0.0.1:port.
	URL string
	// Addr is host:port.
	Addr string
}

// Start parses yamlText (the listen field is replaced by a free loopback port), starts a
// Server and stops it (drained, lease released) when the test ends.
func Start(t testing.TB, yamlText string) *Server {
	t.Helper()
	return StartOn(t, Listen(t), yamlText)
}

// Listen returns a listener on a free loopback port, for StartOn: a test that must know
// the addresses of servers before it starts them (peers of one another) listens first.
func Listen(t testing.TB) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

// StartOn is Start on ln, which it closes when the test ends.
func StartOn(t testing.TB, ln net.Listener, yamlText string) *Server {
	t.Helper()
	text := yamlText
	if !strings.HasPrefix(text, "listen:") && !strings.Contains(text, "\nlisten:") {
		text = "listen: " + ln.Addr().String() + "\n" + text
	}
	cfg, err := config.Parse("test.yaml", []byte(text))
	if err != nil {
		ln.Close()
		t.Fatal(err)
	}
	cfg.SetListen(ln.Addr().String())
	var w io.Writer = io.Discard
	if os.Getenv("IDGEN_TEST_SERVER_LOG") != "" {
		w = os.Stderr
	}
	log := slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := server.New(ctx, cfg, log)
	if err != nil {
		ln.Close()
		t.Fatal(err)
	}
	if cfg.ConsoleOn() {
		con, err := console.New(s, log)
		if err != nil {
			ln.Close()
			t.Fatal(err)
		}
		con.Mount(s.Mux())
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	t.Cleanup(func() {
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := s.Shutdown(sctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		if err := <-done; err != nil && err != http.ErrServerClosed {
			t.Errorf("serve: %v", err)
		}
	})
	addr := ln.Addr().String()
	// Serving has begun once /healthz answers: a Shutdown before Serve started its
	// http.Server would find nothing to stop, and Serve would then run on.
	WaitFor(t, "serving", 10*time.Second, func() error {
		res, err := http.Get("http://" + addr + "/healthz")
		if err != nil {
			return err
		}
		res.Body.Close()
		return nil
	})
	return &Server{Server: s, URL: "http://" + addr, Addr: addr}
}

// SQLite returns the YAML of an sqlite store named name on a file in t's temp dir.
func SQLite(t testing.TB, name string) string {
	return fmt.Sprintf("  %s: {type: sqlite, dsn: %q}\n", name, t.TempDir()+"/idgen.db")
}

// WaitFor polls check until it returns nil or the deadline passes.
func WaitFor(t testing.TB, what string, d time.Duration, check func() error) {
	t.Helper()
	deadline := time.Now().Add(d)
	var err error
	for time.Now().Before(deadline) {
		if err = check(); err == nil {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s: not within %v: %v", what, d, err)
}

// WaitReady waits until url's /readyz answers 200 (a fresh lease's wait included).
func WaitReady(t testing.TB, url string) {
	t.Helper()
	WaitFor(t, url+" ready", 30*time.Second, func() error {
		res, err := http.Get(url + "/readyz")
		if err != nil {
			return err
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			return fmt.Errorf("%d %s", res.StatusCode, b)
		}
		return nil
	})
}

// FreePort returns a loopback port free now.
func FreePort(t testing.TB) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// Indent indents every line of s by n spaces.
func Indent(s string, n int) string {
	pad := strings.Repeat(" ", n)
	return pad + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+pad) + "\n"
}
