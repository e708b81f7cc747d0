package server

import (
	"context"
	"net/http"
	"sync"
	"time"

	"connectrpc.com/connect"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel/attribute"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"

	"github.com/idgen/idgen/plugins/idotel"
)

// metrics is the server's OpenTelemetry MeterProvider, exported in Prometheus's format
// at /metrics: idotel's instruments for the generator, the lease and the segment tags,
// and the server's own call counter and duration.
type metrics struct {
	reg       *prometheus.Registry
	provider  *sdkmetric.MeterProvider
	snowflake *idotel.Snowflake
	lease     *idotel.Lease
	segment   *idotel.Segment
	calls     metric.Int64Counter
	duration  metric.Float64Histogram
	opts      sync.Map // callKey -> *callOpts: the attribute sets, made once per method and code
}

type callKey struct{ procedure, code string }

type callOpts struct {
	add []metric.AddOption
	rec []metric.RecordOption
}

func newMetrics() (*metrics, error) {
	m := &metrics{reg: prometheus.NewRegistry()}
	m.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	exp, err := otelprom.New(otelprom.WithRegisterer(m.reg))
	if err != nil {
		return nil, err
	}
	m.provider = sdkmetric.NewMeterProvider(sdkmetric.WithReader(exp))
	opts := idotel.Options{MeterProvider: m.provider}
	if m.snowflake, err = idotel.NewSnowflake(opts); err != nil {
		return nil, err
	}
	if m.lease, err = idotel.NewLease(opts); err != nil {
		return nil, err
	}
	if m.segment, err = idotel.NewSegment(opts); err != nil {
		return nil, err
	}
	meter := m.provider.Meter("github.com/idgen/idgen/cmd/idgen-server")
	if m.calls, err = meter.Int64Counter("idgen.server.calls", metric.WithUnit("{call}"),
		metric.WithDescription("Calls served, by procedure and status code.")); err != nil {
		return nil, err
	}
	if m.duration, err = meter.Float64Histogram("idgen.server.call.duration", metric.WithUnit("s"),
		metric.WithDescription("Duration of calls served, by procedure."),
		metric.WithExplicitBucketBoundaries(0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5)); err != nil {
		return nil, err
	}
	return m, nil
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

func (m *metrics) close() {
	m.snowflake.Close()
	m.segment.Close()
	m.provider.Shutdown(context.Background())
}

// record counts one call of procedure that ended with code ("ok" on success).
func (m *metrics) record(ctx context.Context, procedure, code string, d time.Duration) {
	k := callKey{procedure, code}
	o, ok := m.opts.Load(k)
	if !ok {
		o, _ = m.opts.LoadOrStore(k, &callOpts{
			add: []metric.AddOption{metric.WithAttributeSet(attribute.NewSet(attribute.String("rpc.method", procedure), attribute.String("rpc.code", code)))},
			rec: []metric.RecordOption{metric.WithAttributeSet(attribute.NewSet(attribute.String("rpc.method", procedure)))},
		})
	}
	co := o.(*callOpts)
	m.calls.Add(ctx, 1, co.add...)
	m.duration.Record(ctx, d.Seconds(), co.rec...)
}

// interceptor records every RPC, refused ones included.
func (m *metrics) interceptor() connect.Interceptor {
	return connect.UnaryInterceptorFunc(func(next connect.UnaryFunc) connect.UnaryFunc {
		return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
			start := time.Now()
			res, err := next(ctx, req)
			code := "ok"
			if err != nil {
				code = connect.CodeOf(err).String()
			}
			m.record(ctx, req.Spec().Procedure, code, time.Since(start))
			return res, err
		}
	})
}

// statusWriter remembers the status a handler wrote.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(s int) {
	if w.status == 0 {
		w.status = s
	}
	w.ResponseWriter.WriteHeader(s)
}

// httpCounted records the calls of a plain HTTP handler under name.
func (m *metrics) httpCounted(name string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		h.ServeHTTP(sw, r)
		code := "ok"
		if sw.status >= 300 {
			code = http.StatusText(sw.status)
		}
		m.record(r.Context(), name, code, time.Since(start))
	})
}
