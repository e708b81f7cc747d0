package idrabbit

import (
	"context"
	"fmt"
	"math/bits"
	"os"
	"slices"
	"strconv"
	"sync"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/idgen/idgen/runtime/consume"
)

// Run consumes the queue until ctx ends, then cancels the consumer, finishes the deliveries
// already received and returns nil; or until RabbitMQ cancels the consumer (ErrCancelled),
// or the channel or connection closes, and returns an error matching *amqp.Error when
// RabbitMQ said why. Processors run with a context that ctx's end does not cancel, so that
// work under way commits and is acknowledged; a delivery waiting for an unavailable store
// (paused), or for its next try after a failure, when ctx ends is given back to the queue
// (basic.nack with requeue). Run may be called again after it returned, on a working
// connection.
func (c *Consumer) Run(ctx context.Context) error {
	ch, err := c.conn.Channel()
	if err != nil {
		return fmt.Errorf("idrabbit: opening a channel: %w", err)
	}
	defer ch.Close()
	base := c.opts.ConsumerTag
	if base == "" {
		base = fmt.Sprintf("idrabbit-%d-%d", os.Getpid(), tags.Add(1))
	}
	r := &run{
		c: c, ch: ch, base: base,
		closed: ch.NotifyClose(make(chan *amqp.Error, 1)),
		// amqp091-go tells cancels before it closes the deliveries, and closes this when
		// the channel closes.
		cancelled: ch.NotifyCancel(make(chan string, 1)),
		work:      make(chan Delivery),
		events:    make(chan event, 2*c.opts.Concurrency),
		recent:    make([]int64, 0, c.opts.Prefetch),
	}
	if err := r.consume(r.window()); err != nil {
		return err
	}
	gateCtx, stopGate := context.WithCancel(ctx)
	defer stopGate()
	r.stopGate = stopGate
	work := context.WithoutCancel(ctx)
	var wg sync.WaitGroup
	if c.batch == nil {
		for range c.opts.Concurrency {
			wg.Go(func() {
				for d := range r.work {
					r.handle(work, gateCtx, d)
				}
			})
		}
	} else {
		batches := consume.Batches(r.work, c.opts.BatchSize)
		for range c.opts.Concurrency {
			wg.Go(func() {
				for b := range batches {
					r.handleBatch(work, gateCtx, b)
				}
			})
		}
	}
	r.dispatch(ctx)
	wg.Wait()
	return r.result()
}

// run is the state of one call of Run. Its fields below events belong to the dispatcher
// (the goroutine that called Run); the workers talk to it through events.
type run struct {
	c         *Consumer
	ch        *amqp.Channel
	base      string
	closed    chan *amqp.Error
	cancelled chan string
	stopGate  func()
	work      chan Delivery // deliveries handed to the workers
	events    chan event    // settled and failed deliveries, from the workers

	n        int        // consumers started
	cur      *sub       // the consumer RabbitMQ sends to, nil between two
	old      []*sub     // consumers cancelled whose last deliveries may still come
	queue    []Delivery // received, not yet taken by a worker
	retries  []retry    // failed, waiting for their next try
	inflight int        // deliveries received and not yet settled (acked, rejected, given back)
	bytes    int64      // their bodies
	recent   []int64    // the body sizes of the latest deliveries, a ring of Prefetch
	at       int        // the ring's next slot

	stopping   bool        // ctx ended: no new consumer, waiting deliveries given back
	gone       bool        // the channel closed: nothing can be acknowledged any more
	ended      bool        // consuming ended otherwise: no new consumer
	closeErr   *amqp.Error // why the channel closed, if RabbitMQ said
	closedSeen bool        // closed delivered its value (or was closed)
	serverStop bool        // RabbitMQ cancelled a consumer (basic.cancel)
	err        error       // a failed consume or cancel
}

// sub is one basic.consume.
type sub struct {
	tag        string
	qos        int
	deliveries <-chan amqp.Delivery
}

// retry is a delivery waiting for its next try.
type retry struct {
	d   Delivery
	due time.Time
}

// event is what a worker tells the dispatcher: a delivery settled (its body's size), a
// delivery to try again after a delay, or one to give back to the queue.
type event struct {
	settled int64
	again   bool // try d again after after
	back    bool // give d back: Run is stopping, or the channel closed
	d       Delivery
	after   time.Duration
}

// dispatch receives deliveries, hands them to the workers, keeps failed ones until their
// next try, and keeps the bodies held under MaxInFlightBytes by consuming again with
// another prefetch; it returns, having closed work, once consuming ended and every
// delivery received is settled.
func (r *run) dispatch(ctx context.Context) {
	done := ctx.Done()
	closed, cancelled := r.closed, r.cancelled
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		r.adjust()
		if (r.stopping || r.gone || r.ended) && r.cur == nil && len(r.old) == 0 && r.inflight == 0 {
			close(r.work)
			return
		}
		var send chan<- Delivery
		var next Delivery
		if len(r.queue) > 0 {
			send, next = r.work, r.queue[0]
		}
		var in, inOld <-chan amqp.Delivery
		if r.cur != nil {
			in = r.cur.deliveries
		}
		if len(r.old) > 0 {
			inOld = r.old[0].deliveries
		}
		var due <-chan time.Time
		if len(r.retries) > 0 {
			first := slices.MinFunc(r.retries, func(a, b retry) int { return a.due.Compare(b.due) }).due
			if timer == nil {
				timer = time.NewTimer(time.Until(first))
			} else {
				timer.Reset(time.Until(first))
			}
			due = timer.C
		}
		select {
		case raw, ok := <-in:
			if !ok {
				r.cur, r.ended = nil, true // RabbitMQ cancelled it, or the channel closed
				continue
			}
			r.receive(raw)
		case raw, ok := <-inOld:
			if !ok {
				r.old = r.old[1:]
				continue
			}
			r.receive(raw)
		case send <- next:
			r.queue[0] = Delivery{}
			r.queue = r.queue[1:]
		case ev := <-r.events:
			r.event(ev)
		case <-due:
			r.due()
		case <-done:
			done = nil
			r.stop()
		case e := <-closed: // nil when the channel closed without an error
			closed = nil
			r.closeErr, r.closedSeen = e, true
			r.lost()
		case _, ok := <-cancelled:
			if !ok {
				cancelled = nil
				continue
			}
			r.serverStop = true
		}
	}
}

// receive takes a delivery RabbitMQ sent.
func (r *run) receive(raw amqp.Delivery) {
	d := r.c.delivery(raw)
	r.inflight++
	size := int64(len(raw.Body))
	r.bytes += size
	if len(r.recent) < cap(r.recent) {
		r.recent = append(r.recent, size)
	} else {
		r.recent[r.at] = size
		r.at = (r.at + 1) % len(r.recent)
	}
	if r.gone {
		r.bytes -= size
		r.inflight--
		return
	}
	r.queue = append(r.queue, d)
}

// event takes what a worker said.
func (r *run) event(ev event) {
	if !ev.again && !ev.back {
		r.inflight--
		r.bytes -= ev.settled
		return
	}
	if ev.back || r.stopping || r.gone {
		r.giveBack(ev.d)
		return
	}
	r.retries = append(r.retries, retry{ev.d, time.Now().Add(ev.after)})
}

// due queues the failed deliveries whose next try is due.
func (r *run) due() {
	now := time.Now()
	r.retries = slices.DeleteFunc(r.retries, func(t retry) bool {
		if t.due.After(now) {
			return false
		}
		r.queue = append(r.queue, t.d)
		return true
	})
}

// giveBack returns d to the queue (basic.nack with requeue: from RabbitMQ 4.3 a quorum
// queue does not count a nack as a failed delivery) and settles it; on a closed channel
// RabbitMQ has requeued it already.
func (r *run) giveBack(d Delivery) {
	if !r.gone {
		r.c.ack(d, d.Nack(false, true))
	}
	r.inflight--
	r.bytes -= int64(len(d.Body))
}

// stop begins the end Run's ctx asked for: the consumer is cancelled, and the deliveries
// waiting for a next try, or for the store, are given back; those received are still
// processed.
func (r *run) stop() {
	r.stopping = true
	r.stopGate()
	if r.cur != nil {
		r.retire()
	}
	for _, t := range r.retries {
		r.giveBack(t.d)
	}
	r.retries = nil
}

// lost takes the channel's close: nothing received can be acknowledged any more, and
// RabbitMQ requeues it all.
func (r *run) lost() {
	r.gone = true
	r.stopGate()
	for _, d := range r.queue {
		r.giveBack(d)
	}
	r.queue = nil
	for _, t := range r.retries {
		r.giveBack(t.d)
	}
	r.retries = nil
}

// window is the prefetch that keeps the bodies held under MaxInFlightBytes: as many
// bodies of the largest recent size as fit, rounded down to a power of two (so that
// sizes that vary a little do not change it), at least 1, at most Prefetch; 1 before any
// delivery was seen.
func (r *run) window() int {
	p := r.c.opts.Prefetch
	if r.c.opts.MaxInFlightBytes < 0 {
		return p
	}
	largest := r.largest()
	if largest == 0 {
		if len(r.recent) == 0 {
			return 1
		}
		return p
	}
	n := r.c.opts.MaxInFlightBytes / largest
	switch {
	case n >= int64(p):
		return p
	case n < 1:
		return 1
	}
	return 1 << (bits.Len64(uint64(n)) - 1)
}

func (r *run) largest() int64 {
	var m int64
	for _, s := range r.recent {
		m = max(m, s)
	}
	return m
}

// adjust consumes again when the window changed: at once to shrink it (the consumer with
// the larger prefetch is cancelled), and to grow it once the bodies held leave room for a
// whole window of the largest recent size (or none is held).
func (r *run) adjust() {
	if r.stopping || r.gone || r.ended {
		return
	}
	want := r.window()
	if r.cur != nil {
		q := r.cur.qos
		if want == q || want > q && want < 2*q && want < r.c.opts.Prefetch {
			return
		}
		r.retire()
		if r.ended {
			return
		}
	}
	if r.inflight > 0 && r.bytes+int64(want)*r.largest() > r.c.opts.MaxInFlightBytes && r.c.opts.MaxInFlightBytes > 0 {
		return // waits for room
	}
	if err := r.consume(want); err != nil {
		r.err, r.ended = err, true
	}
}

// consume starts a consumer with prefetch qos.
func (r *run) consume(qos int) error {
	if err := r.ch.Qos(qos, 0, false); err != nil {
		return fmt.Errorf("idrabbit: setting the prefetch: %w", err)
	}
	r.n++
	tag := r.base
	if r.n > 1 {
		tag += "." + strconv.Itoa(r.n)
	}
	ds, err := r.ch.Consume(r.c.opts.Queue, tag, false, false, false, false, nil)
	if err != nil {
		return fmt.Errorf("idrabbit: consuming %q: %w", r.c.opts.Queue, err)
	}
	r.cur = &sub{tag: tag, qos: qos, deliveries: ds}
	return nil
}

// retire cancels the current consumer; its last deliveries still come, through old.
func (r *run) retire() {
	s := r.cur
	r.cur = nil
	if err := r.ch.Cancel(s.tag, false); err != nil {
		r.err, r.ended = fmt.Errorf("idrabbit: cancelling the consumer of %q: %w", r.c.opts.Queue, err), true
	}
	r.old = append(r.old, s)
}

// result is what Run returns once every delivery is settled.
func (r *run) result() error {
	if r.stopping && !r.gone && !r.serverStop {
		return r.err // nil, or a failed cancel
	}
	if r.serverStop {
		return fmt.Errorf("idrabbit: consuming %q: %w", r.c.opts.Queue, ErrCancelled)
	}
	if !r.closedSeen && r.err == nil {
		// The deliveries closed: RabbitMQ cancelled the consumer, or the channel went
		// away, which closed has the reason of, or is closed too.
		select {
		case r.closeErr = <-r.closed:
		case _, ok := <-r.cancelled:
			if ok {
				return fmt.Errorf("idrabbit: consuming %q: %w", r.c.opts.Queue, ErrCancelled)
			}
			r.closeErr = <-r.closed
		}
	}
	if r.closeErr != nil {
		return fmt.Errorf("idrabbit: consuming %q: %w", r.c.opts.Queue, r.closeErr)
	}
	if r.err != nil {
		return r.err
	}
	return fmt.Errorf("idrabbit: consuming %q: %w", r.c.opts.Queue, amqp.ErrClosed)
}

// handle processes one delivery through the gate and settles it, or hands it back for its
// next try.
func (r *run) handle(work, gateCtx context.Context, d Delivery) {
	c := r.c
	if d.Key == "" {
		c.noKey(d)
		r.settled(d)
		return
	}
	var ran bool
	done, err := c.gate.Run(gateCtx, func() error {
		var err error
		ran, err = c.proc(work, c.recordKey(d), d)
		return err
	}, func(err error) { c.paused(d, err) })
	if !done {
		r.events <- event{back: true, d: d} // Run is stopping while the store is unavailable
		return
	}
	r.finish(d, ran, err)
}

// finish acknowledges or rejects d after its Processor returned, or sends it back to the
// dispatcher for its next try.
func (r *run) finish(d Delivery, ran bool, err error) {
	c := r.c
	c.settle(d, ran, err, func(next Delivery, after time.Duration) {
		r.events <- event{again: true, d: next, after: after}
	})
	if err == nil || d.Attempt >= c.opts.MaxAttempts {
		r.settled(d)
	}
}

// settled tells the dispatcher that d is acknowledged or rejected.
func (r *run) settled(d Delivery) { r.events <- event{settled: int64(len(d.Body))} }

// handleBatch processes deliveries in one call of the Batch and acknowledges them after
// it returned; if it failed with an error of a message (not of the store), it handles them
// one by one. A delivery without a key is handled alone, as it would be without batching.
func (r *run) handleBatch(work, gateCtx context.Context, raws []Delivery) {
	c := r.c
	ds := make([]Delivery, 0, len(raws))
	keys := make([]string, 0, len(raws))
	for _, d := range raws {
		if d.Key == "" {
			r.handle(work, gateCtx, d)
			continue
		}
		ds = append(ds, d)
		keys = append(keys, c.recordKey(d))
	}
	if len(ds) <= 1 {
		for _, d := range ds {
			r.handle(work, gateCtx, d)
		}
		return
	}
	var ran []bool
	done, err := c.gate.Run(gateCtx, func() error {
		var err error
		ran, err = c.batch(work, keys, ds)
		return err
	}, func(err error) {
		for _, d := range ds {
			c.paused(d, err)
		}
	})
	switch {
	case !done:
		for _, d := range ds {
			r.events <- event{back: true, d: d} // Run is stopping while the store is unavailable
		}
	case err != nil:
		// Nothing of the batch committed: each delivery alone gets what it would have got
		// without batching, the failing one its retry or dead letter.
		for _, d := range ds {
			r.handle(work, gateCtx, d)
		}
	default:
		for i, d := range ds { // after the commit
			r.finish(d, ran[i], nil)
		}
	}
}
