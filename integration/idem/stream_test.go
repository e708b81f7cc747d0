package idem_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idgen/idgen/runtime/idem"
)

// TestOversizeResponse: a response 4 times MaxResponseBytes reaches the client whole, and
// its key is completed without the body: 3 retries get its status and headers, a
// problem+json body and the warning, and the handler runs once.
func TestOversizeResponse(t *testing.T) {
	const limit = 1024
	big := bytes.Repeat([]byte("0123456789abcdef"), 4*limit/16)
	for _, st := range stores(t) {
		t.Run(st.name, func(t *testing.T) {
			var runs atomic.Int64
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				runs.Add(1)
				w.Header().Set("Location", "/orders/1")
				w.Header().Set("Content-Type", "text/plain")
				w.WriteHeader(http.StatusCreated)
				for b := big; len(b) > 0; b = b[100:] { // in pieces, as handlers write
					w.Write(b[:min(100, len(b))])
					if len(b) < 100 {
						break
					}
				}
			})
			srv := newServer(t, idem.Config{Store: st.store, Scope: tenantScope, MaxResponseBytes: limit}, h)
			key := uniqueKey(t, "big")
			resp, body := post(t, srv.URL, key, "acme", `{}`)
			if resp.StatusCode != http.StatusCreated || body != string(big) || !strings.Contains(resp.Header.Get(idem.WarningHeader), "not stored") {
				t.Fatalf("first response: %d, %d bytes, warning %q", resp.StatusCode, len(body), resp.Header.Get(idem.WarningHeader))
			}
			for i := range 3 {
				resp, body := post(t, srv.URL, key, "acme", `{}`)
				var p map[string]any
				if resp.StatusCode != http.StatusCreated || resp.Header.Get(idem.ReplayedHeader) != "true" ||
					resp.Header.Get(idem.WarningHeader) == "" || resp.Header.Get("Location") != "/orders/1" ||
					resp.Header.Get("Content-Type") != "application/problem+json" || json.Unmarshal([]byte(body), &p) != nil {
					t.Errorf("retry %d: %d %v %q", i, resp.StatusCode, resp.Header, body)
				}
			}
			if runs.Load() != 1 {
				t.Errorf("handler ran %d times", runs.Load())
			}
		})
	}
}

// TestStreamedMemory streams 256 MiB through the middleware with a 1 MiB limit: the heap
// stays within 4 limits and 16 MiB of where it started.
func TestStreamedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 256 MiB")
	}
	const limit = 1 << 20
	chunk := bytes.Repeat([]byte("x"), 32<<10)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for range (256 << 20) / len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	srv := newServer(t, idem.Config{Store: idem.NewMemory(), Scope: idem.SingleTenant, MaxResponseBytes: limit}, h)

	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	heap := func() uint64 { metrics.Read(sample); return sample[0].Value.Uint64() }
	runtime.GC()
	base := heap()
	var peak atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			if v := heap(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	})
	req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader("{}"))
	req.Header.Set("Idempotency-Key", "stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	close(stop)
	wg.Wait()
	if err != nil || n != 256<<20 {
		t.Fatalf("read %d bytes: %v", n, err)
	}
	grew := int64(peak.Load()) - int64(base)
	t.Logf("heap: %d MiB at start, peak %d MiB (+%.1f MiB) while streaming 256 MiB", base>>20, peak.Load()>>20, float64(grew)/(1<<20))
	if bound := int64(4*limit + 16<<20); grew > bound {
		t.Errorf("the heap grew by %d bytes while streaming, bound %d", grew, bound)
	}
}

// TestServerSentEvents: a handler that flushes reaches the client before it returns, and
// its key is completed so that a retry does not run it again.
func TestServerSentEvents(t *testing.T) {
	for _, st := range stores(t) {
		t.Run(st.name, func(t *testing.T) {
			var runs atomic.Int64
			firstRead := make(chan struct{})
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				runs.Add(1)
				rc := http.NewResponseController(w)
				if err := rc.SetWriteDeadline(time.Now().Add(time.Minute)); err != nil {
					t.Errorf("SetWriteDeadline through the middleware: %v", err)
				}
				w.Header().Set("Content-Type", "text/event-stream")
				io.WriteString(w, "data: one\n\n")
				if err := rc.Flush(); err != nil {
					t.Errorf("Flush through the middleware: %v", err)
				}
				select {
				case <-firstRead:
				case <-time.After(30 * time.Second):
					t.Error("the client never saw the first event")
				}
				io.WriteString(w, "data: two\n\n")
			})
			srv := newServer(t, idem.Config{Store: st.store, Scope: tenantScope}, h)
			key := uniqueKey(t, "sse")
			req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader("{}"))
			req.Header.Set("Idempotency-Key", key)
			req.Header.Set("X-Tenant", "acme")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			br := bufio.NewReader(resp.Body)
			line, err := br.ReadString('\n')
			if err != nil || line != "data: one\n" {
				t.Fatalf("first event: %q %v", line, err)
			}
			close(firstRead) // the handler is still running: it waits for this
			rest, _ := io.ReadAll(br)
			resp.Body.Close()
			if string(rest) != "\ndata: two\n\n" {
				t.Errorf("rest of the stream: %q", rest)
			}
			resp2, _ := post(t, srv.URL, key, "acme", "{}")
			if resp2.StatusCode != http.StatusOK || resp2.Header.Get(idem.ReplayedHeader) != "true" || resp2.Header.Get(idem.WarningHeader) == "" {
				t.Errorf("retry of a stream: %d %v", resp2.StatusCode, resp2.Header)
			}
			if runs.Load() != 1 {
				t.Errorf("handler ran %d times", runs.Load())
			}
		})
	}
}

// TestHijack: a handler that takes the connection gets it, and a retry does not run it
// again: it gets 422, the response is not replayable (TestHijackReplay in runtime/idem has
// the details).
func TestHijack(t *testing.T) {
	var runs atomic.Int64
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		runs.Add(1)
		c, rw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Errorf("Hijack through the middleware: %v", err)
			return
		}
		defer c.Close()
		rw.WriteString("HTTP/1.1 202 Accepted\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
		rw.Flush()
	})
	// The client reads the response before the handler returns: the retry waits for the key.
	srv := newServer(t, idem.Config{Store: idem.NewMemory(), Scope: idem.SingleTenant, Wait: time.Minute}, h)
	resp, body := post(t, srv.URL, "hijack", "", "{}")
	if resp.StatusCode != http.StatusAccepted || body != "ok" {
		t.Fatalf("hijacked response: %d %q", resp.StatusCode, body)
	}
	resp, _ = post(t, srv.URL, "hijack", "", "{}")
	if resp.StatusCode != http.StatusUnprocessableEntity || resp.Header.Get(idem.ReplayedHeader) != "true" || runs.Load() != 1 {
		t.Errorf("retry of a hijacked request: %d %v, %d runs", resp.StatusCode, resp.Header, runs.Load())
	}
}
