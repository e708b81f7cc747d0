package idgenclient

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"connectrpc.com/connect"

	v1 "github.com/idgen/idgen/idgenclient/idgenv1"
	"github.com/idgen/idgen/idgenclient/idgenv1/idgenv1connect"
)

// fake is an IDService handing out a segment tag's runs from a shared counter (as
// servers sharing a store do), or failing with code when set.
type fake struct {
	idgenv1connect.UnimplementedIDServiceHandler
	next  *atomic.Int64
	code  atomic.Int32 // a connect.Code to fail with, 0 to serve
	calls atomic.Int64
	// stride, when above 1, makes the fake a tinyid database with that delta and
	// remainder stride-1: its IDs are every stride-th, the counter counts them, and a
	// caller that does not accept a stride gets one a call.
	stride int64
}

func (f *fake) fail() error {
	f.calls.Add(1)
	if c := connect.Code(f.code.Load()); c != 0 {
		return connect.NewError(c, errors.New("fake failure"))
	}
	return nil
}

func (f *fake) DescribeTag(_ context.Context, r *connect.Request[v1.DescribeTagRequest]) (*connect.Response[v1.DescribeTagResponse], error) {
	if err := f.fail(); err != nil {
		return nil, err
	}
	if r.Msg.Tag == "order" {
		return connect.NewResponse(&v1.DescribeTagResponse{Tag: &v1.TagInfo{Name: "order", Kind: v1.Kind_KIND_SEGMENT}}), nil
	}
	return nil, connect.NewError(connect.CodeNotFound, errors.New("unknown tag"))
}

func (f *fake) Range(_ context.Context, r *connect.Request[v1.RangeRequest]) (*connect.Response[v1.RangeResponse], error) {
	if err := f.fail(); err != nil {
		return nil, err
	}
	n := min(r.Msg.Count, 37) // short runs, as at the end of a server's block
	if f.stride > 1 {
		if !r.Msg.AcceptStride {
			n = 1
		}
		k := f.next.Add(n) - n // the index of the run's first ID
		return connect.NewResponse(&v1.RangeResponse{Start: f.stride - 1 + k*f.stride, Count: n, Stride: f.stride}), nil
	}
	start := f.next.Add(n) - n + 1
	return connect.NewResponse(&v1.RangeResponse{Start: start, Count: n}), nil
}

func serve(t *testing.T, f *fake) string {
	mux := http.NewServeMux()
	mux.Handle(idgenv1connect.NewIDServiceHandler(f))
	s := httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s.URL
}

// TestSegmentFailover: with one server failing UNAVAILABLE, the source's IDs come from
// the other, and no ID is handed out twice by goroutines drawing at once.
func TestSegmentFailover(t *testing.T) {
	var counter atomic.Int64
	bad, good := &fake{next: &counter}, &fake{next: &counter}
	bad.code.Store(int32(connect.CodeUnavailable))
	c, err := New(Options{Addresses: []string{serve(t, bad), serve(t, good)}, MinBatch: 10, MaxBatch: 100})
	if err != nil {
		t.Fatal(err)
	}
	src, err := c.Segment(context.Background(), "order")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	seen := map[int64]bool{}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 2000 {
				id, err := src.NextInt64(context.Background())
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				if seen[id] {
					t.Errorf("ID %d handed out twice", id)
				}
				seen[id] = true
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(seen) != 16000 {
		t.Fatalf("%d IDs", len(seen))
	}
	// The failing server is skipped for a while after it failed: far fewer calls.
	if b, g := bad.calls.Load(), good.calls.Load(); b*4 > g {
		t.Fatalf("the failing server got %d calls, the good one %d", b, g)
	}
}

// TestSegmentStride: the Segment source reads a strided run (tinyid's delta 3) as every
// third ID, so it hands out only the IDs of its remainder, none twice and none skipped;
// Range, which does not accept a stride, gets one ID a call.
func TestSegmentStride(t *testing.T) {
	var counter atomic.Int64
	f := &fake{next: &counter, stride: 3}
	c, err := New(Options{Addresses: []string{serve(t, f)}, MinBatch: 10, MaxBatch: 100})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := c.Range(t.Context(), "order", 50); err != nil || r.Count != 1 {
		t.Fatalf("Range(50) = %v, %v; want one ID", r, err)
	}
	src, err := c.Segment(t.Context(), "order")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	seen := map[int64]bool{}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 500 {
				id, err := src.NextInt64(t.Context())
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				if seen[id] || id%3 != 2 {
					t.Errorf("ID %d: twice, or not of remainder 2 modulo 3", id)
				}
				seen[id] = true
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	// The source fetches one run at a time and hands its runs out in order, so the 2000
	// IDs are the fake's after the one Range took: none skipped.
	for k := int64(1); k <= 2000; k++ {
		if id := 2 + 3*k; !seen[id] {
			t.Fatalf("ID %d skipped", id)
		}
	}
	if calls := f.calls.Load(); calls > 2000/10 {
		t.Fatalf("%d calls for 2000 IDs: runs of one ID", calls)
	}
}

// resetter is an address whose every connection is reset once a request has arrived:
// a server killed or shut down under a call.
func resetter(t *testing.T) (url string, conns *atomic.Int64) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	conns = new(atomic.Int64)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			c.Read(make([]byte, 4096)) // the request's first bytes
			c.(*net.TCPConn).SetLinger(0)
			c.Close() // RST: the client reads ECONNRESET
		}
	}()
	return "http://" + ln.Addr().String(), conns
}

// TestResetFailover: a server that resets the connection under a call is another
// server's turn. connect-go reports ECONNRESET and EPIPE as CANCELED, the code of a
// caller's own cancellation; the caller's context is not done, so the call goes on.
func TestResetFailover(t *testing.T) {
	var counter atomic.Int64
	reset, conns := resetter(t)
	good := &fake{next: &counter}
	c, err := New(Options{Addresses: []string{reset, serve(t, good)}})
	if err != nil {
		t.Fatal(err)
	}
	for range 4 { // the resetting address first in turn at least once
		if _, err := c.Range(context.Background(), "order", 10); err != nil {
			t.Fatalf("Range with one server resetting: %v", err)
		}
	}
	if conns.Load() == 0 {
		t.Fatal("the resetting server got no call")
	}
	// The caller's own cancellation still ends the call at once.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Range(ctx, "order", 10); !errors.Is(err, context.Canceled) {
		t.Fatalf("Range with a canceled context: %v", err)
	}
}

// TestNotRetried: a refusal another server would repeat (a bad token, an unknown tag)
// is returned at once, not tried on every address.
func TestNotRetried(t *testing.T) {
	var counter atomic.Int64
	a, b := &fake{next: &counter}, &fake{next: &counter}
	a.code.Store(int32(connect.CodeUnauthenticated))
	b.code.Store(int32(connect.CodeUnauthenticated))
	c, err := New(Options{Addresses: []string{serve(t, a), serve(t, b)}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Segment(context.Background(), "order")
	var e *Error
	if !errors.As(err, &e) || e.Code() != connect.CodeUnauthenticated || len(e.Errs) != 1 {
		t.Fatalf("got %v", err)
	}
	// Every server down: the error lists each.
	a.code.Store(int32(connect.CodeUnavailable))
	b.code.Store(int32(connect.CodeUnavailable))
	_, err = c.Segment(context.Background(), "order")
	if !errors.As(err, &e) || e.Code() != connect.CodeUnavailable || len(e.Errs) != 2 {
		t.Fatalf("got %v", err)
	}
}

func TestOptions(t *testing.T) {
	for _, o := range []Options{
		{},
		{Addresses: []string{"127.0.0.1:7070"}},
		{Addresses: []string{"http://a"}, Refill: 1},
		{Addresses: []string{"http://a"}, MinBatch: 10, MaxBatch: 5},
	} {
		if _, err := New(o); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
}
