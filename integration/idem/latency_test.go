package idem_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idgen/idgen/runtime/idem"
)

// BenchmarkLatency drives a server on loopback with 8 concurrent clients, each POST with a
// new key, and reports the p50 and p99 latency per request: the bare handler, then the
// middleware on every store available. The difference is what the middleware adds.
func BenchmarkLatency(b *testing.B) {
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		w.Write([]byte(`{"order":"ORD2026120212345600000000001"}`))
	})
	run := func(b *testing.B, h http.Handler) {
		srv := httptest.NewServer(h)
		defer srv.Close()
		client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
		const clients = 8
		var next atomic.Int64
		lat := make([][]time.Duration, clients)
		b.ResetTimer()
		var wg sync.WaitGroup
		for c := range clients {
			wg.Go(func() {
				for next.Add(1) <= int64(b.N) {
					i := next.Load()
					req, _ := http.NewRequest(http.MethodPost, srv.URL+"/orders", strings.NewReader(`{"cents":1999}`))
					req.Header.Set("Idempotency-Key", fmt.Sprintf("bench-%d-%d-%d", time.Now().UnixNano(), c, i))
					start := time.Now()
					resp, err := client.Do(req)
					if err != nil {
						b.Error(err)
						return
					}
					resp.Body.Close()
					lat[c] = append(lat[c], time.Since(start))
				}
			})
		}
		wg.Wait()
		b.StopTimer()
		all := slices.Concat(lat...)
		slices.Sort(all)
		if len(all) == 0 {
			return
		}
		b.ReportMetric(float64(all[len(all)/2].Microseconds()), "p50-µs")
		b.ReportMetric(float64(all[len(all)*99/100].Microseconds()), "p99-µs")
	}
	b.Run("bare", func(b *testing.B) { run(b, handler) })
	for _, st := range stores(b) {
		b.Run(st.name, func(b *testing.B) {
			mw, err := idem.New(idem.Config{Store: st.store, Scope: idem.SingleTenant})
			if err != nil {
				b.Fatal(err)
			}
			run(b, mw.Wrap(handler))
		})
	}
}
