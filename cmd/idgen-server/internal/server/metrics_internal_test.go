package server

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// The call metrics on /metrics: names, labels, help and buckets as dashboards know them.
func TestCallMetrics(t *testing.T) {
	m, err := newMetrics()
	if err != nil {
		t.Fatal(err)
	}
	defer m.close()
	m.record("leaf/snowflake", "ok", 50*time.Microsecond)
	m.record("leaf/snowflake", "ok", 2*time.Millisecond)
	m.record("/idgen.v1.IDService/Next", "not_found", time.Millisecond)
	rec := httptest.NewRecorder()
	m.handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	for _, want := range []string{
		"# HELP idgen_server_calls_total Calls served, by procedure and status code.",
		"# TYPE idgen_server_calls_total counter",
		`idgen_server_calls_total{rpc_code="ok",rpc_method="leaf/snowflake"} 2`,
		`idgen_server_calls_total{rpc_code="not_found",rpc_method="/idgen.v1.IDService/Next"} 1`,
		"# HELP idgen_server_call_duration_seconds Duration of calls served, by procedure.",
		"# TYPE idgen_server_call_duration_seconds histogram",
		`idgen_server_call_duration_seconds_bucket{rpc_method="leaf/snowflake",le="0.0001"} 1`,
		`idgen_server_call_duration_seconds_bucket{rpc_method="leaf/snowflake",le="0.0025"} 2`,
		`idgen_server_call_duration_seconds_bucket{rpc_method="leaf/snowflake",le="2.5"} 2`,
		`idgen_server_call_duration_seconds_bucket{rpc_method="leaf/snowflake",le="+Inf"} 2`,
		`idgen_server_call_duration_seconds_count{rpc_method="leaf/snowflake"} 2`,
		`idgen_server_call_duration_seconds_sum{rpc_method="leaf/snowflake"} 0.00205`,
	} {
		if !strings.Contains(string(body), want+"\n") {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	if t.Failed() {
		t.Log(string(body))
	}
}

// BenchmarkRecord: counting one call (counter and histogram) from every core.
func BenchmarkRecord(b *testing.B) {
	m, err := newMetrics()
	if err != nil {
		b.Fatal(err)
	}
	defer m.close()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			m.record("leaf/snowflake", "ok", 30*time.Microsecond)
		}
	})
}
