package idotel_test

import (
	"context"
	"sync"
	"testing"
	"time"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/idgen/idgen/plugins/idotel"
	"github.com/idgen/idgen/runtime/snowflake"
)

// exporter keeps the last idgen.ids.issued it was given.
type exporter struct {
	mu     sync.Mutex
	issued int64
	seen   bool
}

func (e *exporter) Temporality(k sdkmetric.InstrumentKind) metricdata.Temporality {
	return sdkmetric.DefaultTemporalitySelector(k)
}

func (e *exporter) Aggregation(k sdkmetric.InstrumentKind) sdkmetric.Aggregation {
	return sdkmetric.DefaultAggregationSelector(k)
}

func (e *exporter) Export(_ context.Context, rm *metricdata.ResourceMetrics) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if sum, ok := m.Data.(metricdata.Sum[int64]); ok && m.Name == "idgen.ids.issued" {
				for _, p := range sum.DataPoints {
					e.issued, e.seen = p.Value, true
				}
			}
		}
	}
	return nil
}

func (e *exporter) ForceFlush(context.Context) error { return nil }
func (e *exporter) Shutdown(context.Context) error   { return nil }

// TestShutdownThenClose: with a periodic reader that has not exported yet, the Shutdown
// before Close that Close's doc asks for exports every ID issued.
func TestShutdownThenClose(t *testing.T) {
	exp := &exporter{}
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp, sdkmetric.WithInterval(time.Hour))))
	ids, err := idotel.NewSnowflake(idotel.Options{MeterProvider: mp})
	if err != nil {
		t.Fatal(err)
	}
	g, err := snowflake.New(snowflake.Classic(), 1, snowflake.Options{Observer: ids})
	if err != nil {
		t.Fatal(err)
	}
	for range 1000 {
		if _, err := g.Next(); err != nil {
			t.Fatal(err)
		}
	}
	if err := mp.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := ids.Close(); err != nil {
		t.Fatal(err)
	}
	exp.mu.Lock()
	defer exp.mu.Unlock()
	if !exp.seen || exp.issued != 1000 {
		t.Fatalf("exported idgen.ids.issued %d (seen %v), want 1000", exp.issued, exp.seen)
	}
}
