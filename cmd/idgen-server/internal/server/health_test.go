package server_test

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/idgen/idgen/cmd/idgen-server/internal/server"
	"github.com/idgen/idgen/cmd/idgen-server/internal/testserver"
	v1 "github.com/idgen/idgen/idgenclient/idgenv1"
	"github.com/idgen/idgen/idgenclient/idgenv1/idgenv1connect"
)

// cutter is a TCP forwarder a test can cut and restore, on one address: a store that
// goes away and comes back.
type cutter struct {
	addr, target string
	mu           sync.Mutex
	ln           net.Listener
	conns        map[net.Conn]bool
}

func newCutter(t *testing.T, target string) *cutter {
	c := &cutter{target: target, conns: map[net.Conn]bool{}}
	c.addr = fmt.Sprintf("127.0.0.1:%d", testserver.FreePort(t))
	c.restore(t)
	t.Cleanup(c.cut)
	return c
}

// restore listens again and forwards every connection.
func (c *cutter) restore(t *testing.T) {
	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	c.ln = ln
	c.mu.Unlock()
	go func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("tcp", c.target)
			if err != nil {
				in.Close()
				continue
			}
			c.mu.Lock()
			c.conns[in], c.conns[out] = true, true
			c.mu.Unlock()
			go func() { io.Copy(out, in); out.Close() }()
			go func() { io.Copy(in, out); in.Close() }()
		}
	}()
}

// cut stops listening and closes every forwarded connection.
func (c *cutter) cut() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ln != nil {
		c.ln.Close()
		c.ln = nil
	}
	for conn := range c.conns {
		conn.Close()
		delete(c.conns, conn)
	}
}

// TestHealthWatch: grpc-go's health client watches the server through Watch: SERVING,
// NOT_SERVING once the segment store goes away and the tag has nothing buffered, SERVING
// again once the store is back; the server's drain ends the stream after NOT_SERVING.
// Check still answers, and an unknown service is SERVICE_UNKNOWN to Watch.
func TestHealthWatch(t *testing.T) {
	dsn := server.StoreDSN(t, "IDGEN_TEST_POSTGRES_DSN")
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	c := newCutter(t, u.Host)
	u.Host = c.addr
	suffix := strings.ToLower(rand.Text()[:8])
	t.Cleanup(func() { dropTables("pgx", dsn, suffix) })
	s := testserver.Start(t, fmt.Sprintf(`stores:
  db: {type: postgres, dsn: %q, segment_table: idgen_segment_st_`+suffix+`}
tags:
  - {name: order, kind: segment, store: db, step: 10, min_step: 10, max_step: 10}
`, u.String()))
	waitReady(t, s.URL)

	conn, err := grpc.NewClient(s.Addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	hc := healthpb.NewHealthClient(conn)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if r, err := hc.Check(ctx, &healthpb.HealthCheckRequest{Service: idgenv1connect.IDServiceName}); err != nil || r.Status != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("Check: %v %v", r, err)
	}
	unknown, err := hc.Watch(ctx, &healthpb.HealthCheckRequest{Service: "no.such.Service"})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := unknown.Recv(); err != nil || r.Status != healthpb.HealthCheckResponse_SERVICE_UNKNOWN {
		t.Fatalf("Watch of an unknown service: %v %v", r, err)
	}
	w, err := hc.Watch(ctx, &healthpb.HealthCheckRequest{})
	if err != nil {
		t.Fatal(err)
	}
	expect := func(want healthpb.HealthCheckResponse_ServingStatus) {
		t.Helper()
		r, err := w.Recv()
		if err != nil || r.Status != want {
			t.Fatalf("Watch: %v %v, want %v", r, err, want)
		}
	}
	expect(healthpb.HealthCheckResponse_SERVING)

	// The store goes away: the buffered IDs are served, then the tag fails.
	c.cut()
	api := client(s.URL, "")
	for {
		_, err := api.Next(ctx, connect.NewRequest(&v1.NextRequest{Tag: "order"}))
		if connect.CodeOf(err) == connect.CodeUnavailable {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	expect(healthpb.HealthCheckResponse_NOT_SERVING)

	// The store is back: the next call reserves, and readiness follows.
	c.restore(t)
	testserver.WaitFor(t, "a reservation after the store is back", 30*time.Second, func() error {
		_, err := api.Next(ctx, connect.NewRequest(&v1.NextRequest{Tag: "order"}))
		return err
	})
	expect(healthpb.HealthCheckResponse_SERVING)

	// Draining: NOT_SERVING, then the stream ends, so that it does not hold the drain.
	done := make(chan error, 1)
	go func() { done <- s.Shutdown(ctx) }()
	expect(healthpb.HealthCheckResponse_NOT_SERVING)
	if _, err := w.Recv(); !errors.Is(err, io.EOF) {
		t.Errorf("after NOT_SERVING at drain: %v, want the stream's end", err)
	}
	for {
		if _, err := unknown.Recv(); err != nil {
			if !errors.Is(err, io.EOF) {
				t.Errorf("the unknown service's stream at drain: %v, want its end", err)
			}
			break
		}
	}
	if err := <-done; err != nil {
		t.Errorf("shutdown: %v", err)
	}
}
