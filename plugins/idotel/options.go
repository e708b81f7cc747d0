package idotel

import (
	"fmt"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// ScopeName is the instrumentation scope of every instrument made here.
const ScopeName = "github.com/idgen/idgen/plugins/idotel"

// Options configure an adapter. The zero value uses the global MeterProvider.
type Options struct {
	// MeterProvider makes the instruments; otel.GetMeterProvider() if nil.
	MeterProvider metric.MeterProvider
	// Attributes are added to every measurement, to tell apart adapters of one process:
	// a generator's name, a queue.
	Attributes []attribute.KeyValue
}

// meter returns the Meter of o's provider.
func (o Options) meter() metric.Meter {
	mp := o.MeterProvider
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	return mp.Meter(ScopeName)
}

// set returns o's attributes with more, as a set.
func (o Options) set(more ...attribute.KeyValue) attribute.Set {
	kv := make([]attribute.KeyValue, 0, len(o.Attributes)+len(more))
	return attribute.NewSet(append(append(kv, o.Attributes...), more...)...)
}

// instrumentError wraps the error of making the instrument name.
func instrumentError(name string, err error) error {
	return fmt.Errorf("idotel: making instrument %q: %w", name, err)
}

// Bucket boundaries, in seconds. Clock waits are bounded by snowflake's MaxWait (1 s by
// default) and usually last under a tick; store round trips are those of
// http.server.request.duration; rollbacks range from an NTP slew to a restored snapshot.
var (
	waitBuckets     = []float64{0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5}
	latencyBuckets  = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10}
	rollbackBuckets = []float64{0.001, 0.01, 0.1, 1, 10, 60, 600, 3600, 86400}
)
