package idotel

import (
	"context"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/idgen/idgen/runtime/segment"
)

// SegmentTagKey is the attribute naming a segment allocator's business tag.
const SegmentTagKey = attribute.Key("idgen.segment.tag")

// errorTypeKey is the semantic conventions' error.type; its value is "_OTHER", the
// conventions' fallback, since a store's errors have no stable low-cardinality name.
const errorTypeKey = attribute.Key("error.type")

// Segment is a segment.Observer recording block reservations; Track adds an Allocator
// whose buffered IDs it reports. Safe for concurrent use.
type Segment struct {
	opts     Options
	fetch    metric.Float64Histogram
	reserved metric.Int64Counter
	buffered metric.Int64ObservableUpDownCounter
	reg      metric.Registration

	mu     sync.Mutex
	allocs []*segment.Allocator
	tags   map[string]segmentTag // the measurement options of each tag seen
}

// segmentTag holds the measurement options of one tag.
type segmentTag struct {
	ok, failed []metric.RecordOption
	add        []metric.AddOption
	obs        []metric.ObserveOption
}

var _ segment.Observer = (*Segment)(nil)

// NewSegment makes the instruments idgen.segment.fetch.duration,
// idgen.segment.ids.reserved and idgen.segment.ids.buffered, and registers the callback
// that reports the IDs buffered by the tracked allocators. Close unregisters it.
func NewSegment(opts Options) (*Segment, error) {
	m := opts.meter()
	s := &Segment{opts: opts, tags: map[string]segmentTag{}}
	var err error
	if s.fetch, err = m.Float64Histogram("idgen.segment.fetch.duration", metric.WithUnit("s"),
		metric.WithDescription("Duration of block reservations in the segment store."),
		metric.WithExplicitBucketBoundaries(latencyBuckets...)); err != nil {
		return nil, instrumentError("idgen.segment.fetch.duration", err)
	}
	if s.reserved, err = m.Int64Counter("idgen.segment.ids.reserved", metric.WithUnit("{id}"),
		metric.WithDescription("IDs in the blocks reserved from the segment store.")); err != nil {
		return nil, instrumentError("idgen.segment.ids.reserved", err)
	}
	if s.buffered, err = m.Int64ObservableUpDownCounter("idgen.segment.ids.buffered", metric.WithUnit("{id}"),
		metric.WithDescription("IDs reserved and not yet handed out, by the tracked allocators.")); err != nil {
		return nil, instrumentError("idgen.segment.ids.buffered", err)
	}
	if s.reg, err = m.RegisterCallback(s.observe, s.buffered); err != nil {
		return nil, instrumentError("idgen.segment.ids.buffered", err)
	}
	return s, nil
}

// tag returns the options of tag; s.mu is held.
func (s *Segment) tag(tag string) segmentTag {
	t, ok := s.tags[tag]
	if !ok {
		set := metric.WithAttributeSet(s.opts.set(SegmentTagKey.String(tag)))
		t = segmentTag{
			ok:     []metric.RecordOption{set},
			failed: []metric.RecordOption{metric.WithAttributeSet(s.opts.set(SegmentTagKey.String(tag), errorTypeKey.String("_OTHER")))},
			add:    []metric.AddOption{set},
			obs:    []metric.ObserveOption{set},
		}
		s.tags[tag] = t
	}
	return t
}

// Reserved implements segment.Observer.
func (s *Segment) Reserved(tag string, n int64, d time.Duration, err error) {
	s.mu.Lock()
	t := s.tag(tag)
	s.mu.Unlock()
	ctx := context.Background()
	if err != nil {
		s.fetch.Record(ctx, d.Seconds(), t.failed...)
		return
	}
	s.fetch.Record(ctx, d.Seconds(), t.ok...)
	s.reserved.Add(ctx, n, t.add...)
}

// Track adds a to the allocators whose buffered IDs idgen.segment.ids.buffered reports,
// summed by tag, for as long as the Segment is open: track an allocator that lives as long
// as the process, as one per tag does.
func (s *Segment) Track(a *segment.Allocator) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.allocs = append(s.allocs, a)
}

func (s *Segment) observe(_ context.Context, o metric.Observer) error {
	s.mu.Lock()
	allocs := append([]*segment.Allocator(nil), s.allocs...)
	s.mu.Unlock()
	byTag := map[string]int64{}
	for _, a := range allocs {
		byTag[a.Tag()] += a.Stats().Buffered
	}
	for tag, n := range byTag {
		s.mu.Lock()
		t := s.tag(tag)
		s.mu.Unlock()
		o.ObserveInt64(s.buffered, n, t.obs...)
	}
	return nil
}

// Close unregisters the callback of idgen.segment.ids.buffered, which is no longer
// reported; Reserved keeps recording.
func (s *Segment) Close() error { return s.reg.Unregister() }
