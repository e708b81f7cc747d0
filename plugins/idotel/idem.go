package idotel

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/idgen/idgen/runtime/idem"
)

// IdemOutcomeKey is the attribute naming what the idem middleware did with a request: the
// idem.Outcome's name (ran, released, replayed, in_flight, mismatch, refused,
// store_failed, claim_lost).
const IdemOutcomeKey = attribute.Key("idgen.idem.outcome")

// Idem is an idem.Observer recording each keyed request's outcome and duration; set it as
// idem.Config.Observer. Safe for concurrent use.
type Idem struct {
	duration metric.Float64Histogram
	byOut    [idem.ClaimLost + 1][]metric.RecordOption
}

var _ idem.Observer = (*Idem)(nil)

// NewIdem makes the instrument idgen.idem.request.duration, a histogram whose count per
// idgen.idem.outcome is the number of requests of each outcome.
func NewIdem(opts Options) (*Idem, error) {
	m := opts.meter()
	r := &Idem{}
	for o := range r.byOut {
		r.byOut[o] = []metric.RecordOption{metric.WithAttributeSet(opts.set(IdemOutcomeKey.String(idem.Outcome(o).String())))}
	}
	var err error
	if r.duration, err = m.Float64Histogram("idgen.idem.request.duration", metric.WithUnit("s"),
		metric.WithDescription("Duration of requests carrying an idempotency key, middleware and handler, by outcome."),
		metric.WithExplicitBucketBoundaries(latencyBuckets...)); err != nil {
		return nil, instrumentError("idgen.idem.request.duration", err)
	}
	return r, nil
}

// Served implements idem.Observer.
func (r *Idem) Served(o idem.Outcome, d time.Duration) {
	opts := r.byOut[0]
	if int(o) < len(r.byOut) {
		opts = r.byOut[o]
	}
	r.duration.Record(context.Background(), d.Seconds(), opts...)
}
