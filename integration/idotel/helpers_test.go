package idotel_test

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/idgen/idgen/plugins/idotel"
)

// meter is an SDK MeterProvider read by hand.
type meter struct {
	reader *sdkmetric.ManualReader
	opts   idotel.Options
}

func newMeter(t testing.TB) *meter {
	t.Helper()
	r := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(r))
	t.Cleanup(func() { mp.Shutdown(context.Background()) })
	return &meter{reader: r, opts: idotel.Options{MeterProvider: mp}}
}

// collected is one collection of every instrument.
type collected map[string]metricdata.Metrics

func (m *meter) collect(t testing.TB) collected {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := m.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	c := collected{}
	for _, sm := range rm.ScopeMetrics {
		if sm.Scope.Name != idotel.ScopeName {
			t.Errorf("scope %q, want %q", sm.Scope.Name, idotel.ScopeName)
		}
		for _, mt := range sm.Metrics {
			c[mt.Name] = mt
		}
	}
	return c
}

// has reports whether set holds every attribute of want.
func has(set attribute.Set, want []attribute.KeyValue) bool {
	for _, kv := range want {
		if v, ok := set.Value(kv.Key); !ok || v != kv.Value {
			return false
		}
	}
	return true
}

// unit fails t unless the instrument name was collected with unit u.
func (c collected) unit(t testing.TB, name, u string) metricdata.Metrics {
	t.Helper()
	mt, ok := c[name]
	if !ok {
		t.Fatalf("instrument %s not collected; have %v", name, c.names())
	}
	if mt.Unit != u {
		t.Errorf("%s: unit %q, want %q", name, mt.Unit, u)
	}
	return mt
}

func (c collected) names() []string {
	var n []string
	for k := range c {
		n = append(n, k)
	}
	return n
}

// sum returns the sum of the int64 counter (or up-down counter, or int gauge) name over its
// points that carry the attributes attrs.
func (c collected) sum(t testing.TB, name string, attrs ...attribute.KeyValue) int64 {
	t.Helper()
	var n int64
	switch d := c[name].Data.(type) {
	case metricdata.Sum[int64]:
		for _, p := range d.DataPoints {
			if has(p.Attributes, attrs) {
				n += p.Value
			}
		}
	case metricdata.Gauge[int64]:
		for _, p := range d.DataPoints {
			if has(p.Attributes, attrs) {
				n += p.Value
			}
		}
	case nil:
		return 0
	default:
		t.Fatalf("%s: data %T, want an int64 sum", name, d)
	}
	return n
}

// gauge returns the value of the float64 gauge name.
func (c collected) gauge(t testing.TB, name string) float64 {
	t.Helper()
	d, ok := c[name].Data.(metricdata.Gauge[float64])
	if !ok || len(d.DataPoints) != 1 {
		t.Fatalf("%s: data %#v, want one float64 gauge point", name, c[name].Data)
	}
	return d.DataPoints[0].Value
}

// hist returns the count and sum of the float64 histogram name over its points that
// carry the attributes attrs.
func (c collected) hist(t testing.TB, name string, attrs ...attribute.KeyValue) (uint64, float64) {
	t.Helper()
	var n uint64
	var s float64
	switch d := c[name].Data.(type) {
	case metricdata.Histogram[float64]:
		for _, p := range d.DataPoints {
			if has(p.Attributes, attrs) {
				n += p.Count
				s += p.Sum
			}
		}
	case nil:
	default:
		t.Fatalf("%s: data %T, want a float64 histogram", name, d)
	}
	return n, s
}
