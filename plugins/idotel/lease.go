package idotel

import (
	"context"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/idgen/idgen/runtime/lease"
)

// LeaseEventKey is the attribute naming a lease event: the lease.EventKind's name in snake
// case (acquired, acquire_failed, renewed, renew_failed, lost, released).
const LeaseEventKey = attribute.Key("idgen.lease.event")

// Lease records the events of worker-ID leases: pass its OnEvent as lease.Config.OnEvent.
// One Lease adapter may serve several leases; it is safe for concurrent use.
type Lease struct {
	events  metric.Int64Counter
	held    metric.Int64UpDownCounter
	acquire metric.Float64Histogram
	renew   metric.Float64Histogram
	base    []metric.AddOption
	baseRec []metric.RecordOption
	byKind  [lease.Released + 1]leaseKind
}

// leaseKind holds the measurement options of one event kind.
type leaseKind struct {
	add []metric.AddOption
	rec []metric.RecordOption
}

// NewLease makes the instruments idgen.lease.events, idgen.lease.held,
// idgen.lease.acquire.duration and idgen.lease.renew.duration.
func NewLease(opts Options) (*Lease, error) {
	m := opts.meter()
	base := metric.WithAttributeSet(opts.set())
	l := &Lease{base: []metric.AddOption{base}, baseRec: []metric.RecordOption{base}}
	for k := range l.byKind {
		name := "unknown"
		if k > 0 {
			name = strings.ReplaceAll(lease.EventKind(k).String(), "-", "_")
		}
		set := metric.WithAttributeSet(opts.set(LeaseEventKey.String(name)))
		l.byKind[k] = leaseKind{add: []metric.AddOption{set}, rec: []metric.RecordOption{set}}
	}
	var err error
	if l.events, err = m.Int64Counter("idgen.lease.events", metric.WithUnit("{event}"),
		metric.WithDescription("Worker-ID lease events: acquisitions, renewals, losses, releases and failures.")); err != nil {
		return nil, instrumentError("idgen.lease.events", err)
	}
	if l.held, err = m.Int64UpDownCounter("idgen.lease.held", metric.WithUnit("{lease}"),
		metric.WithDescription("Worker-ID leases held: from each acquisition until the lease is lost or released.")); err != nil {
		return nil, instrumentError("idgen.lease.held", err)
	}
	if l.acquire, err = m.Float64Histogram("idgen.lease.acquire.duration", metric.WithUnit("s"),
		metric.WithDescription("Duration of successful worker-ID claims in the lease store."),
		metric.WithExplicitBucketBoundaries(latencyBuckets...)); err != nil {
		return nil, instrumentError("idgen.lease.acquire.duration", err)
	}
	if l.renew, err = m.Float64Histogram("idgen.lease.renew.duration", metric.WithUnit("s"),
		metric.WithDescription("Duration of lease renewals in the lease store, by what became of them."),
		metric.WithExplicitBucketBoundaries(latencyBuckets...)); err != nil {
		return nil, instrumentError("idgen.lease.renew.duration", err)
	}
	return l, nil
}

// OnEvent records e; it is a lease.Config.OnEvent. A lease counts as held from its
// Acquired event until its Lost or Released event (a lease whose renewals keep failing
// stops issuing at its deadline but is held until the store says otherwise).
func (l *Lease) OnEvent(e lease.Event) {
	ctx := context.Background()
	k := l.byKind[0]
	if int(e.Kind) < len(l.byKind) {
		k = l.byKind[e.Kind]
	}
	l.events.Add(ctx, 1, k.add...)
	switch e.Kind {
	case lease.Acquired:
		l.held.Add(ctx, 1, l.base...)
		l.acquire.Record(ctx, e.Took.Seconds(), l.baseRec...)
	case lease.Renewed, lease.RenewFailed:
		l.renew.Record(ctx, e.Took.Seconds(), k.rec...)
	case lease.Lost:
		l.held.Add(ctx, -1, l.base...)
		l.renew.Record(ctx, e.Took.Seconds(), k.rec...)
	case lease.Released:
		l.held.Add(ctx, -1, l.base...)
	}
}
