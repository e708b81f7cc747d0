package idgenclient

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/idgen/idgen"
	v1 "github.com/idgen/idgen/idgenclient/idgenv1"
	"github.com/idgen/idgen/runtime/snowflake"
)

// chunk is one server answer: a run first..last, every stride-th ID (Range), or a list
// of IDs (List).
type chunk struct {
	ids         []int64 // a List answer, handed out from ids[0]; nil for a run
	first, last int64   // a Range answer, handed out from first
	stride      int64   // the distance between two IDs of a run, at least 1
}

func (c *chunk) len() int {
	if c.ids != nil {
		return len(c.ids)
	}
	if c.first > c.last {
		return 0
	}
	return int((c.last-c.first)/c.stride + 1)
}

// Invariant: no ID is handed out twice. Every ID in the buffer came from one server
// answer (fetch), which is appended to queue once; an ID leaves the buffer only by pop
// moving past it (ids[0] dropped, or first incremented), under mu. Nothing else adds
// to or rewinds the queue: a failed fetch adds nothing, and a fetch is never repeated
// from what an earlier one asked for.
//
// The other fields (left, batch, taken, fetching, err) decide only when a fetch starts,
// how large it is, and what a caller with nothing buffered is told.
type buffer struct {
	fetch func(ctx context.Context, n int) (chunk, error)
	o     *Options

	mu       sync.Mutex
	queue    []chunk
	left     int           // IDs in queue
	batch    int           // the size the next fetch asks for
	taken    int           // IDs handed out since the latest fetch started
	since    time.Time     // when the latest fetch started
	fetching chan struct{} // non-nil while a fetch runs; closed when it ends
	err      error         // the latest fetch's error, nil after a success
	stats    Stats
}

// Stats counts what a source has done.
type Stats struct {
	// Fetches and Failed count the calls made for batches and those that failed on
	// every server; Waited counts the callers that found the buffer empty and waited.
	Fetches, Failed, Waited int64
	// Buffered is the number of IDs held; Batch the size of the next fetch.
	Buffered, Batch int
}

func newBuffer(o *Options, fetch func(ctx context.Context, n int) (chunk, error)) *buffer {
	return &buffer{fetch: fetch, o: o, batch: o.MinBatch}
}

// next hands out one ID, waiting for a fetch only when nothing is buffered.
func (b *buffer) next(ctx context.Context) (int64, error) {
	b.mu.Lock()
	for {
		if b.left > 0 {
			id := b.pop()
			if b.fetching == nil && b.left <= int(float64(b.batch)*b.o.Refill) {
				b.start()
			}
			b.mu.Unlock()
			return id, nil
		}
		ch := b.fetching
		if ch == nil {
			ch = b.start()
		}
		b.stats.Waited++
		b.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return 0, ctx.Err()
		}
		b.mu.Lock()
		if b.left == 0 && b.err != nil && b.fetching == nil {
			err := b.err
			b.mu.Unlock()
			return 0, err
		}
	}
}

// pop takes the next ID; b.left > 0 and b.mu is held.
func (b *buffer) pop() int64 {
	c := &b.queue[0]
	var id int64
	if c.ids != nil {
		id = c.ids[0]
		c.ids = c.ids[1:]
		if len(c.ids) == 0 {
			c.ids = nil
			c.first, c.last = 1, 0 // empty
		}
	} else {
		id = c.first
		c.first += c.stride
	}
	if c.ids == nil && c.first > c.last {
		b.queue = b.queue[1:]
	}
	b.left--
	b.taken++
	return id
}

// start sizes the next batch to the rate since the latest fetch and starts it in the
// background; b.mu is held.
func (b *buffer) start() chan struct{} {
	now := time.Now()
	if !b.since.IsZero() {
		if d := now.Sub(b.since); d > 0 && b.taken > 0 {
			rate := float64(b.taken) / d.Seconds()
			b.batch = min(max(int(rate*b.o.Lead.Seconds()), b.o.MinBatch), b.o.MaxBatch)
		}
	}
	b.since, b.taken = now, 0
	ch := make(chan struct{})
	b.fetching = ch
	b.stats.Fetches++
	go b.run(b.batch, ch)
	return ch
}

// run fetches n IDs and files them.
func (b *buffer) run(n int, done chan struct{}) {
	c, err := b.fetch(context.Background(), n)
	b.mu.Lock()
	b.fetching = nil
	b.err = err
	if err != nil {
		b.stats.Failed++
	} else if k := c.len(); k > 0 {
		b.queue = append(b.queue, c)
		b.left += k
	}
	b.mu.Unlock()
	close(done)
}

// Stats returns the counters.
func (b *buffer) Stats() Stats {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.stats
	s.Buffered, s.Batch = b.left, b.batch
	return s
}

// Snowflake is an idgen.Source of a snowflake tag's IDs, fetched in batches with List.
// It reports the tag's layout, so typed snowflake IDs and business numbers of that layout
// take it. Safe for concurrent use.
type Snowflake struct {
	tag    string
	layout snowflake.Layout
	buf    *buffer
}

var _ idgen.Source = (*Snowflake)(nil)

// Segment is an idgen.Source of a segment tag's IDs, fetched in runs with Range. Its
// IDs are counters: it reports Timeless, so business numbers refuse it. Safe for
// concurrent use.
type Segment struct {
	tag string
	buf *buffer
}

var _ idgen.Timeless = (*Segment)(nil)

// Snowflake returns a source of the snowflake tag tag, after asking a server for its
// layout. Nothing is fetched until the first ID is asked for.
func (c *Client) Snowflake(ctx context.Context, tag string) (*Snowflake, error) {
	info, err := c.Describe(ctx, tag)
	if err != nil {
		return nil, err
	}
	if info.Kind != v1.Kind_KIND_SNOWFLAKE {
		return nil, fmt.Errorf("idgenclient: tag %q is of kind %v, not a snowflake tag", tag, info.Kind)
	}
	l, err := LayoutOf(info.Layout)
	if err != nil {
		return nil, fmt.Errorf("idgenclient: tag %q: %w", tag, err)
	}
	s := &Snowflake{tag: tag, layout: l}
	s.buf = newBuffer(&c.o, func(ctx context.Context, n int) (chunk, error) {
		r, err := c.List(ctx, tag, n)
		if err != nil {
			return chunk{}, err
		}
		if len(r.Ids) == 0 {
			return chunk{}, fmt.Errorf("idgenclient: tag %q: the server answered no ID", tag)
		}
		return chunk{ids: r.Ids}, nil
	})
	return s, nil
}

// Segment returns a source of the segment tag tag, after asking a server that it is
// one. Nothing is fetched until the first ID is asked for.
func (c *Client) Segment(ctx context.Context, tag string) (*Segment, error) {
	info, err := c.Describe(ctx, tag)
	if err != nil {
		return nil, err
	}
	if info.Kind != v1.Kind_KIND_SEGMENT {
		return nil, fmt.Errorf("idgenclient: tag %q is of kind %v, not a segment tag", tag, info.Kind)
	}
	s := &Segment{tag: tag}
	s.buf = newBuffer(&c.o, func(ctx context.Context, n int) (chunk, error) {
		r, err := c.RangeStrided(ctx, tag, int64(n))
		if err != nil {
			return chunk{}, err
		}
		stride := max(1, r.Stride)
		if r.Count < 1 || r.Count > int64(n) || r.Start < 1 || r.Stride < 0 || (r.Count-1) > (math.MaxInt64-r.Start)/stride {
			return chunk{}, fmt.Errorf("idgenclient: tag %q: the server answered run (%d, %d, stride %d) for %d IDs", tag, r.Start, r.Count, r.Stride, n)
		}
		return chunk{first: r.Start, last: r.Start + (r.Count-1)*stride, stride: stride}, nil
	})
	return s, nil
}

// NextInt64 implements idgen.Source.
func (s *Snowflake) NextInt64(ctx context.Context) (int64, error) { return s.buf.next(ctx) }

// Layout returns the layout of the tag's IDs.
func (s *Snowflake) Layout() snowflake.Layout { return s.layout }

// Tag returns the tag.
func (s *Snowflake) Tag() string { return s.tag }

// Stats returns the source's counters.
func (s *Snowflake) Stats() Stats { return s.buf.Stats() }

// NextInt64 implements idgen.Source.
func (s *Segment) NextInt64(ctx context.Context) (int64, error) { return s.buf.next(ctx) }

// Timeless implements idgen.Timeless: segment IDs are counters.
func (s *Segment) Timeless() bool { return true }

// Tag returns the tag.
func (s *Segment) Tag() string { return s.tag }

// Stats returns the source's counters.
func (s *Segment) Stats() Stats { return s.buf.Stats() }

// LayoutOf returns the snowflake layout l describes, validated.
func LayoutOf(l *v1.Layout) (snowflake.Layout, error) {
	if l == nil {
		return snowflake.Layout{}, fmt.Errorf("no layout")
	}
	out := snowflake.Layout{
		Epoch:          l.Epoch.AsTime(),
		Unit:           time.Duration(l.UnitNanos),
		TimeBits:       uint8(l.TimeBits),
		WorkerBits:     uint8(l.WorkerBits),
		SeqBits:        uint8(l.SequenceBits),
		DatacenterBits: uint8(l.DatacenterBits),
	}
	if l.Width != 63 {
		out.Width = uint8(l.Width)
	}
	if l.SequenceBeforeWorker {
		out.Order = snowflake.TimeSeqWorker
	}
	return out, out.Validate()
}
