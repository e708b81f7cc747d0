package idotel_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	_ "modernc.org/sqlite"

	"github.com/idgen/idgen/plugins/idotel"
	"github.com/idgen/idgen/runtime/lease"
	"github.com/idgen/idgen/runtime/segment"
	"github.com/idgen/idgen/runtime/snowflake"
	"github.com/idgen/idgen/runtime/sqldb"
)

// The examples that need a database live here, beside the tests that do, so that
// plugins/idotel requires no driver; plugins/idotel/example_test.go holds the others.

// show collects r and prints each data point of the instruments named.
func show(r sdkmetric.Reader, names ...string) {
	var rm metricdata.ResourceMetrics
	if err := r.Collect(context.Background(), &rm); err != nil {
		panic(err)
	}
	for _, name := range names {
		for _, sm := range rm.ScopeMetrics {
			for _, m := range sm.Metrics {
				if m.Name != name {
					continue
				}
				switch d := m.Data.(type) {
				case metricdata.Sum[int64]:
					for _, p := range d.DataPoints {
						fmt.Printf("%s%s = %d %s\n", name, labels(p.Attributes), p.Value, m.Unit)
					}
				case metricdata.Histogram[float64]:
					for _, p := range d.DataPoints {
						fmt.Printf("%s%s: count %d\n", name, labels(p.Attributes), p.Count)
					}
				}
			}
		}
	}
}

// labels formats a set of attributes, sorted by key, as {k=v,...}.
func labels(s attribute.Set) string {
	if s.Len() == 0 {
		return ""
	}
	var kv []string
	for _, a := range s.ToSlice() {
		kv = append(kv, string(a.Key)+"="+a.Value.String())
	}
	return "{" + strings.Join(kv, ",") + "}"
}

// A Lease on SQLite reporting its events; its generators could report to a Snowflake
// adapter through Config.Options.Observer.
func ExampleNewLease() {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer mp.Shutdown(context.Background())

	leases, err := idotel.NewLease(idotel.Options{MeterProvider: mp})
	if err != nil {
		panic(err)
	}
	db, err := sql.Open("sqlite", "file:idotel-lease?mode=memory&cache=shared")
	if err != nil {
		panic(err)
	}
	defer db.Close()
	b, err := lease.NewSQL(db, sqldb.SQLite, lease.SQLOptions{})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	l, err := lease.Acquire(ctx, b, lease.Config{Layout: snowflake.Classic(), OnEvent: leases.OnEvent})
	if err != nil {
		panic(err)
	}
	show(reader, "idgen.lease.held")
	if err := l.Close(ctx); err != nil {
		panic(err)
	}
	show(reader, "idgen.lease.held", "idgen.lease.events")
	// Unordered output:
	// idgen.lease.held = 1 {lease}
	// idgen.lease.held = 0 {lease}
	// idgen.lease.events{idgen.lease.event=acquired} = 1 {event}
	// idgen.lease.events{idgen.lease.event=released} = 1 {event}
}

// A segment allocator reporting its reservations, and tracked for the IDs it buffers.
func ExampleNewSegment() {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer mp.Shutdown(context.Background())

	segments, err := idotel.NewSegment(idotel.Options{MeterProvider: mp})
	if err != nil {
		panic(err)
	}
	defer segments.Close()
	db, err := sql.Open("sqlite", "file:idotel-segment?mode=memory&cache=shared")
	if err != nil {
		panic(err)
	}
	defer db.Close()
	store, err := segment.NewSQL(db, sqldb.SQLite, segment.SQLOptions{})
	if err != nil {
		panic(err)
	}
	orders, err := segment.New(store, "order", segment.Options{Step: 100, MinStep: 100, MaxStep: 100, Observer: segments})
	if err != nil {
		panic(err)
	}
	segments.Track(orders)
	orders.NextInt64(context.Background()) // the first ID waits for the first block
	show(reader, "idgen.segment.fetch.duration", "idgen.segment.ids.buffered")
	// Output:
	// idgen.segment.fetch.duration{idgen.segment.tag=order}: count 1
	// idgen.segment.ids.buffered{idgen.segment.tag=order} = 99 {id}
}
