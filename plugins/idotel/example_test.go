package idotel_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/idgen/idgen/plugins/idotel"
	"github.com/idgen/idgen/runtime/consume"
	"github.com/idgen/idgen/runtime/idem"
	"github.com/idgen/idgen/runtime/snowflake"
)

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

// A generator reporting to an SDK MeterProvider: the IDs issued are an observable counter,
// read when the reader collects.
func ExampleNewSnowflake() {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)) // in a service: a periodic reader and an exporter

	ids, err := idotel.NewSnowflake(idotel.Options{MeterProvider: mp})
	if err != nil {
		panic(err)
	}
	defer func() {
		mp.Shutdown(context.Background()) // the last collection, then
		ids.Close()                       // the callback goes
	}()
	g, err := snowflake.New(snowflake.Classic(), 1, snowflake.Options{Observer: ids})
	if err != nil {
		panic(err)
	}
	for range 3 {
		g.Next()
	}
	g.NextN(context.Background(), 100)
	show(reader, "idgen.ids.issued")
	// Output:
	// idgen.ids.issued = 103 {id}
}

// The idem middleware reporting each keyed request's outcome and duration.
func ExampleNewIdem() {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer mp.Shutdown(context.Background())

	requests, err := idotel.NewIdem(idotel.Options{MeterProvider: mp})
	if err != nil {
		panic(err)
	}
	mw, err := idem.New(idem.Config{Store: idem.NewMemory(), Scope: idem.SingleTenant, Observer: requests})
	if err != nil {
		panic(err)
	}
	h := mw.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusCreated) }))
	for range 2 { // a request and its retry
		req := httptest.NewRequest(http.MethodPost, "/orders", strings.NewReader(`{"cents":1999}`))
		req.Header.Set("Idempotency-Key", "order-1")
		h.ServeHTTP(httptest.NewRecorder(), req)
	}
	show(reader, "idgen.idem.request.duration")
	// Unordered output:
	// idgen.idem.request.duration{idgen.idem.outcome=ran}: count 1
	// idgen.idem.request.duration{idgen.idem.outcome=replayed}: count 1
}

// A consumer's outcomes; the broker adapters (plugins/rabbitmq, plugins/jetstream) call
// the Observer set in their Options for every delivery.
func ExampleNewConsumer() {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer mp.Shutdown(context.Background())

	deliveries, err := idotel.NewConsumer(idotel.Options{MeterProvider: mp,
		Attributes: []attribute.KeyValue{attribute.String("queue", "orders")}})
	if err != nil {
		panic(err)
	}
	var observer consume.Observer = deliveries // idrabbit.Options{Observer: deliveries}
	observer.Delivered(consume.Processed, false)
	observer.Delivered(consume.Duplicate, true)
	show(reader, "idgen.consumer.messages")
	// Unordered output:
	// idgen.consumer.messages{idgen.consumer.outcome=duplicate,idgen.consumer.redelivered=true,queue=orders} = 1 {message}
	// idgen.consumer.messages{idgen.consumer.outcome=processed,idgen.consumer.redelivered=false,queue=orders} = 1 {message}
}
