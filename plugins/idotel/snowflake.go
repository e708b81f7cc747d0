package idotel

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/metric"

	"github.com/idgen/idgen/runtime/snowflake"
)

// Snowflake is a snowflake.Observer recording a Generator's events. Set it as
// snowflake.Options.Observer, or in lease.Config.Options for the generators of a Lease.
// Several generators may share one: their counts add up, and idgen.clock.drift is the
// latest drift any of them reported (give each its own, with Options.Attributes, to tell
// them apart). It is safe for concurrent use.
//
// It is a snowflake.IssuedCounter: a generator does not tell it of each ID; the collection
// callback reads each generator's own count (Generator.Issued), so that observing costs
// the generator nothing per ID. It keeps every generator it observed reachable, to read
// its count: one entry per generator (a Lease adds one each time it reacquires a worker ID
// after a loss, a rare event), so do not share one with generators made per request.
type Snowflake struct {
	// issued is what Issued was told, by a caller that reports IDs by hand; the
	// generators are counted by counts.
	issued atomic.Int64
	drift  atomic.Int64 // nanoseconds ahead of the clock, as last reported

	mu     sync.Mutex
	counts []func() uint64 // Generator.Issued of each generator observed

	waits        metric.Float64Histogram
	rollbacks    metric.Int64Counter
	rollbackSize metric.Float64Histogram
	issuedObs    metric.Int64ObservableCounter
	driftObs     metric.Float64ObservableGauge
	add          []metric.AddOption
	rec          []metric.RecordOption
	obs          []metric.ObserveOption
	reg          metric.Registration
}

var _ snowflake.IssuedCounter = (*Snowflake)(nil)

// NewSnowflake makes the instruments idgen.ids.issued, idgen.clock.wait.duration,
// idgen.clock.rollbacks, idgen.clock.rollback.size and idgen.clock.drift, and registers
// the callback that reports the issued count and the drift. Close unregisters it.
func NewSnowflake(opts Options) (*Snowflake, error) {
	m, set := opts.meter(), metric.WithAttributeSet(opts.set())
	s := &Snowflake{add: []metric.AddOption{set}, rec: []metric.RecordOption{set}, obs: []metric.ObserveOption{set}}
	var err error
	if s.issuedObs, err = m.Int64ObservableCounter("idgen.ids.issued",
		metric.WithUnit("{id}"), metric.WithDescription("IDs issued by snowflake generators.")); err != nil {
		return nil, instrumentError("idgen.ids.issued", err)
	}
	if s.waits, err = m.Float64Histogram("idgen.clock.wait.duration", metric.WithUnit("s"),
		metric.WithDescription("Time a caller waited for the clock to reach the tick its ID needed."),
		metric.WithExplicitBucketBoundaries(waitBuckets...)); err != nil {
		return nil, instrumentError("idgen.clock.wait.duration", err)
	}
	if s.rollbacks, err = m.Int64Counter("idgen.clock.rollbacks", metric.WithUnit("{rollback}"),
		metric.WithDescription("Clock readings found behind the last issued time (each rollback once, until it clears).")); err != nil {
		return nil, instrumentError("idgen.clock.rollbacks", err)
	}
	if s.rollbackSize, err = m.Float64Histogram("idgen.clock.rollback.size", metric.WithUnit("s"),
		metric.WithDescription("How far the clock was behind the last issued time when a rollback was seen."),
		metric.WithExplicitBucketBoundaries(rollbackBuckets...)); err != nil {
		return nil, instrumentError("idgen.clock.rollback.size", err)
	}
	if s.driftObs, err = m.Float64ObservableGauge("idgen.clock.drift", metric.WithUnit("s"),
		metric.WithDescription("How far ahead of the clock IDs are stamped (borrowed ticks, a logical clock); 0 once it caught up.")); err != nil {
		return nil, instrumentError("idgen.clock.drift", err)
	}
	if s.reg, err = m.RegisterCallback(s.observe, s.issuedObs, s.driftObs); err != nil {
		return nil, instrumentError("idgen.ids.issued", err)
	}
	return s, nil
}

func (s *Snowflake) observe(_ context.Context, o metric.Observer) error {
	n := s.issued.Load()
	s.mu.Lock()
	for _, count := range s.counts {
		n += int64(count())
	}
	s.mu.Unlock()
	o.ObserveInt64(s.issuedObs, n, s.obs...)
	o.ObserveFloat64(s.driftObs, time.Duration(s.drift.Load()).Seconds(), s.obs...)
	return nil
}

// Issued implements snowflake.Observer: one atomic add. Generators do not call it (see
// CountIssued); it counts IDs reported by hand.
func (s *Snowflake) Issued(n int) { s.issued.Add(int64(n)) }

// CountIssued implements snowflake.IssuedCounter: snowflake.New calls it with the
// generator's Issued method, which the collection callback reads.
func (s *Snowflake) CountIssued(issued func() uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.counts = append(s.counts, issued)
}

// Waited implements snowflake.Observer.
func (s *Snowflake) Waited(d time.Duration) {
	s.waits.Record(context.Background(), d.Seconds(), s.rec...)
}

// RollbackSeen implements snowflake.Observer.
func (s *Snowflake) RollbackSeen(behind time.Duration) {
	ctx := context.Background()
	s.rollbacks.Add(ctx, 1, s.add...)
	s.rollbackSize.Record(ctx, behind.Seconds(), s.rec...)
}

// Drift implements snowflake.Observer.
func (s *Snowflake) Drift(ahead time.Duration) { s.drift.Store(int64(ahead)) }

// Close unregisters the callback of the observable instruments: idgen.ids.issued and
// idgen.clock.drift are no longer reported. The other instruments keep recording. Call it
// after the MeterProvider's Shutdown (or a ForceFlush): an observable counter reports only
// while its callback is registered, so the IDs issued since the last collection would
// otherwise never be exported.
func (s *Snowflake) Close() error { return s.reg.Unregister() }
