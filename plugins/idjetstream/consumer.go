package idjetstream

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/idgen/idgen/runtime/consume"
	"github.com/idgen/idgen/runtime/ledger"
)

// Delivery is a message as a Processor sees it. The Consumer acknowledges it: a handler
// must not call its Ack, Nak, Term or InProgress.
type Delivery struct {
	// Key is the message's key: its Nats-Msg-Id header, or the header Options.KeyHeader.
	// The Processor is given it scoped by the consumer's name (Options.Name) to record.
	Key string
	// Attempt is JetStream's count of deliveries of the message, 1 for the first.
	Attempt int
	// Meta is the message's metadata: stream and consumer sequences, timestamps.
	Meta *jetstream.MsgMetadata
	jetstream.Msg
}

// NoKeyAction says what a Consumer does with a message that has no key.
type NoKeyAction uint8

const (
	// NoKeyTerm terminates the message: JetStream never delivers it again.
	NoKeyTerm NoKeyAction = iota
	// NoKeyDeadLetter publishes the message to Options.DeadLetterSubject, then terminates
	// it.
	NoKeyDeadLetter
	// NoKeyNak leaves it unacknowledged, so JetStream redelivers it after AckWait (or on
	// the consumer's BackOff schedule), until MaxDeliver: for a producer known to add keys
	// later. With an unlimited MaxDeliver it comes back every AckWait for ever. Each such
	// message holds a slot of the consumer's MaxAckPending for its AckWait: a burst of
	// them can stall the consumer until they time out.
	NoKeyNak
)

// Defaults of Options.
const (
	DefaultPrefetch    = 64
	DefaultConcurrency = 8
	DefaultRetryDelay  = 250 * time.Millisecond
)

// Headers a dead-lettered copy carries besides the original's.
const (
	// HeaderDeadReason says why the message was dead-lettered: "no key", or the
	// Processor's last error.
	HeaderDeadReason = "Idgen-Dead-Reason"
	// HeaderDeadFrom names the original's stream, subject and stream sequence, as
	// "STREAM subject 42".
	HeaderDeadFrom = "Idgen-Dead-From"
)

// Options configures a Consumer; the zero value is ready.
type Options struct {
	// Name scopes the keys the Consumer's Processor records (ledger.ScopedKey):
	// "jetstream:", the stream's name, and for a durable consumer "." and its name, if
	// empty. Consumers of different streams, or different durable consumers of one
	// stream, thus never take each other's message IDs for done, even with one ledger;
	// consumers that must (a durable renamed) set the same Name.
	Name string
	// Prefetch is how many messages are pulled ahead (jetstream.PullMaxMessages);
	// DefaultPrefetch if zero. Keep it under the consumer's MaxAckPending.
	Prefetch int
	// Concurrency is how many messages are processed at once; DefaultConcurrency if
	// zero. Deliveries of one key processed at once serialise in the Processor.
	Concurrency int
	// RetryDelay is how long JetStream waits before it redelivers a message whose
	// Processor failed: RetryDelay after the first attempt, doubling at each further one,
	// never more than AckWait (NakWithDelay). DefaultRetryDelay if zero; a negative value
	// asks for the redelivery at once (Nak). On a consumer configured with BackOff a failed
	// message is left unacknowledged instead, and JetStream redelivers it on that schedule.
	RetryDelay time.Duration
	// KeyHeader names the header that holds the key; Nats-Msg-Id if empty.
	KeyHeader string
	// NoKey routes a message that has no key; NoKeyTerm if zero.
	NoKey NoKeyAction
	// DeadLetterSubject, if set, receives a copy of every message terminated for failing
	// MaxDeliver times, or for having no key under NoKeyDeadLetter, with the headers
	// HeaderDeadReason and HeaderDeadFrom; put a stream on it to keep them. Its key header
	// is kept, with Nats-Msg-Id renamed to Idgen-Dead-Msg-Id so that the dead-letter
	// stream's duplicate window does not drop it.
	DeadLetterSubject string
	// Gate pauses the Consumer while its store is unavailable; a Gate of its own with
	// the consume defaults if nil.
	Gate *consume.Gate
	// OnError hears every error: a Processor's (a *FailedError), a message without a
	// key (a *consume.NoKeyError), a failed acknowledgement or dead-letter publish, a pull
	// error. It is called from the workers, concurrently; d is the zero Delivery for a pull
	// error. Nil logs them with slog.Default at level Warn.
	OnError func(d Delivery, err error)
	// Observer, if set, hears every outcome besides the Consumer's own Stats.
	Observer consume.Observer
	// BatchSize is the most messages a Consumer made by NewBatchConsumer processes in one
	// call of its Batch (one transaction with OnceTxBatch); consume.DefaultBatchSize if
	// zero, and never more than Prefetch. A batch is what was pulled while the workers
	// were busy: no message waits for a batch to fill. Ignored by NewConsumer's Consumers.
	BatchSize int
}

// ErrAckPolicy is returned by NewConsumer for a consumer whose AckPolicy is not
// AckExplicitPolicy: with AckNone a message is gone before its effect commits, with AckAll
// one acknowledgement covers messages whose effects may not have committed.
var ErrAckPolicy = errors.New("idjetstream: the consumer's AckPolicy must be AckExplicitPolicy")

// Consumer processes the messages of one JetStream consumer through a Processor; see the
// package doc. Stats is safe to call while Run runs.
type Consumer struct {
	js         jetstream.JetStream
	cons       jetstream.Consumer
	proc       consume.Processor[Delivery]
	batch      consume.Batch[Delivery] // nil: one message at a time
	opts       Options
	ackWait    time.Duration
	backOff    []time.Duration
	maxDeliver int
	gate       *consume.Gate
	stats      consume.Stats
}

// NewConsumer returns a Consumer of cons, which must use AckExplicitPolicy; js publishes
// dead letters and may be nil without Options.DeadLetterSubject. Run starts it.
func NewConsumer(js jetstream.JetStream, cons jetstream.Consumer, p consume.Processor[Delivery], opts Options) (*Consumer, error) {
	if cons == nil || p == nil {
		return nil, errors.New("idjetstream: NewConsumer needs a consumer and a Processor")
	}
	if opts.DeadLetterSubject != "" && js == nil {
		return nil, errors.New("idjetstream: Options.DeadLetterSubject needs a JetStream to publish with")
	}
	if opts.NoKey == NoKeyDeadLetter && opts.DeadLetterSubject == "" {
		return nil, errors.New("idjetstream: NoKeyDeadLetter needs Options.DeadLetterSubject")
	}
	info := cons.CachedInfo()
	if info.Config.AckPolicy != jetstream.AckExplicitPolicy {
		return nil, fmt.Errorf("%w: consumer %q has %v", ErrAckPolicy, info.Name, info.Config.AckPolicy)
	}
	if opts.Prefetch <= 0 {
		opts.Prefetch = DefaultPrefetch
	}
	if opts.Concurrency <= 0 {
		opts.Concurrency = DefaultConcurrency
	}
	if opts.RetryDelay == 0 {
		opts.RetryDelay = DefaultRetryDelay
	}
	if opts.OnError == nil {
		opts.OnError = func(d Delivery, err error) {
			slog.Warn("idjetstream: delivery", "consumer", info.Name, "key", d.Key, "attempt", d.Attempt, "err", err)
		}
	}
	if opts.Name == "" {
		opts.Name = "jetstream:" + info.Stream
		if info.Config.Durable != "" {
			opts.Name += "." + info.Config.Durable
		}
	}
	gate := opts.Gate
	if gate == nil {
		gate = &consume.Gate{}
	}
	return &Consumer{js: js, cons: cons, proc: p, opts: opts, gate: gate,
		ackWait: info.Config.AckWait, backOff: info.Config.BackOff, maxDeliver: info.Config.MaxDeliver}, nil
}

// NewBatchConsumer returns a Consumer of cons that processes up to opts.BatchSize
// messages at once through b (consume.OnceTxBatch: one transaction, one statement
// recording the keys), and acknowledges them after b returned. If b fails, the batch is
// processed again one message at a time through b.Processor(), so each message is
// acknowledged, redelivered or terminated as NewConsumer's Consumer would; b must
// therefore commit nothing when it fails. Run starts it.
func NewBatchConsumer(js jetstream.JetStream, cons jetstream.Consumer, b consume.Batch[Delivery], opts Options) (*Consumer, error) {
	if b == nil {
		return nil, errors.New("idjetstream: NewBatchConsumer needs a Batch")
	}
	c, err := NewConsumer(js, cons, b.Processor(), opts)
	if err != nil {
		return nil, err
	}
	if c.opts.BatchSize <= 0 {
		c.opts.BatchSize = consume.DefaultBatchSize
	}
	c.opts.BatchSize = min(c.opts.BatchSize, c.opts.Prefetch)
	c.batch = b
	return c, nil
}

// Stats returns the outcomes counted so far.
func (c *Consumer) Stats() consume.Counts { return c.stats.Counts() }

// Run processes messages until ctx ends, then stops pulling, finishes the messages already
// received and returns nil; or until the connection closes or the consumer is deleted, and
// returns an error saying so. Processors run with a context that ctx's end does not
// cancel, so that work under way commits and is acknowledged; a message waiting for an
// unavailable store (paused) when ctx ends is given back (Nak).
func (c *Consumer) Run(ctx context.Context) error {
	it, err := c.cons.Messages(jetstream.PullMaxMessages(c.opts.Prefetch))
	if err != nil {
		return fmt.Errorf("idjetstream: pulling: %w", err)
	}
	msgs := make(chan held)
	work := context.WithoutCancel(ctx)
	var wg sync.WaitGroup
	if c.batch == nil {
		for range c.opts.Concurrency {
			wg.Go(func() {
				for h := range msgs {
					c.handle(work, ctx, c.delivery(h.Msg), h.stop)
				}
			})
		}
	} else {
		batches := consume.Batches(msgs, c.opts.BatchSize)
		for range c.opts.Concurrency {
			wg.Go(func() {
				for b := range batches {
					c.handleBatch(work, ctx, b)
				}
			})
		}
	}
	stop := context.AfterFunc(ctx, it.Drain) // Next hands out what was pulled, then ends
	defer stop()
	var last error // the latest pull error, which may say why the iterator closed
	for {
		m, err := it.Next()
		if err == nil {
			// AckWait runs from the delivery: the message is kept in progress from here,
			// while it waits for a worker or a batch, and until it is settled.
			msgs <- held{m, c.keepInProgress(m)}
			continue
		}
		if !errors.Is(err, jetstream.ErrMsgIteratorClosed) {
			last = err
			c.opts.OnError(Delivery{}, fmt.Errorf("idjetstream: pulling: %w", err))
			continue
		}
		close(msgs)
		wg.Wait()
		if ctx.Err() != nil {
			return nil
		}
		return errors.Join(fmt.Errorf("idjetstream: pulling: %w", err), last)
	}
}

// held is a message received from the iterator and the stop of its keepInProgress.
type held struct {
	jetstream.Msg
	stop func()
}

// delivery wraps m.
func (c *Consumer) delivery(m jetstream.Msg) Delivery {
	d := Delivery{Msg: m, Attempt: 1}
	if meta, err := m.Metadata(); err == nil {
		d.Meta = meta
		d.Attempt = int(meta.NumDelivered)
	}
	if c.opts.KeyHeader == "" {
		d.Key = m.Headers().Get(jetstream.MsgIDHeader)
	} else {
		d.Key = m.Headers().Get(c.opts.KeyHeader)
	}
	return d
}

// handleBatch processes msgs in one call of the Batch and acknowledges them after it
// returned; if it failed with an error of a message (not of the store), it handles them
// one by one. A message without a key is handled alone, as it would be without batching.
func (c *Consumer) handleBatch(ctx, gateCtx context.Context, hs []held) {
	ds := make([]Delivery, 0, len(hs))
	keys := make([]string, 0, len(hs))
	stops := make([]func(), 0, len(hs))
	for _, h := range hs {
		d := c.delivery(h.Msg)
		if d.Key == "" {
			c.handle(ctx, gateCtx, d, h.stop)
			continue
		}
		ds = append(ds, d)
		keys = append(keys, c.recordKey(d))
		stops = append(stops, h.stop)
	}
	if len(ds) <= 1 {
		for i, d := range ds {
			c.handle(ctx, gateCtx, d, stops[i])
		}
		return
	}
	var ran []bool
	done, err := c.gate.Run(gateCtx, func() error {
		var err error
		ran, err = c.batch(ctx, keys, ds)
		return err
	}, func(err error) {
		for _, d := range ds {
			c.paused(d, err)
		}
	})
	if !done {
		for i, d := range ds {
			c.giveBack(d, stops[i])
		}
		return
	}
	if err != nil {
		// Nothing of the batch committed: each message alone gets what it would have got
		// without batching, the failing one its redelivery or termination; each is kept in
		// progress until then.
		for i, d := range ds {
			c.handle(ctx, gateCtx, d, stops[i])
		}
		return
	}
	for i, d := range ds { // after the commit
		stops[i]()
		if ran[i] {
			c.observe(consume.Processed, d.Attempt > 1)
		} else {
			c.observe(consume.Duplicate, d.Attempt > 1)
		}
		c.ack(d, d.Ack())
	}
}

// handle processes one message through the gate and acknowledges, redelivers or
// terminates it; stop ends its keepInProgress first.
func (c *Consumer) handle(ctx, gateCtx context.Context, d Delivery, stop func()) {
	m := d.Msg
	redelivered := d.Attempt > 1
	if d.Key == "" {
		stop()
		c.observe(consume.NoKey, redelivered)
		source := "header " + jetstream.MsgIDHeader
		if c.opts.KeyHeader != "" {
			source = "header " + strconv.Quote(c.opts.KeyHeader)
		}
		c.opts.OnError(d, &consume.NoKeyError{Source: source, Message: c.describe(d)})
		switch c.opts.NoKey {
		case NoKeyNak:
			// Unacknowledged, it comes back after AckWait (or the consumer's BackOff).
		case NoKeyDeadLetter:
			c.deadLetter(ctx, d, "no key")
		default:
			c.ack(d, m.Term())
		}
		return
	}
	var ran bool
	done, err := c.gate.Run(gateCtx, func() error {
		var err error
		ran, err = c.proc(ctx, c.recordKey(d), d)
		return err
	}, func(err error) { c.paused(d, err) })
	if !done {
		c.giveBack(d, stop)
		return
	}
	stop()
	switch {
	case err == nil:
		if ran {
			c.observe(consume.Processed, redelivered)
		} else {
			c.observe(consume.Duplicate, redelivered)
		}
		c.ack(d, m.Ack())
	case c.maxDeliver > 0 && d.Attempt >= c.maxDeliver:
		c.observe(consume.DeadLettered, redelivered)
		c.opts.OnError(d, &FailedError{Key: d.Key, Attempt: d.Attempt, Terminated: true, Err: err})
		c.deadLetter(ctx, d, err.Error())
	default:
		c.observe(consume.Failed, redelivered)
		c.opts.OnError(d, &FailedError{Key: d.Key, Attempt: d.Attempt, Err: err})
		c.ack(d, c.nak(d))
	}
}

// recordKey is the key d's Processor records: its key scoped by the Consumer's name.
func (c *Consumer) recordKey(d Delivery) string { return ledger.ScopedKey(c.opts.Name, d.Key) }

// paused reports a try that failed because the store was unavailable: the message is held
// in progress and tried again, and JetStream counts no delivery.
func (c *Consumer) paused(d Delivery, err error) {
	c.observe(consume.Paused, d.Attempt > 1)
	c.opts.OnError(d, &FailedError{Key: d.Key, Attempt: d.Attempt, Paused: true, Err: err})
}

// giveBack returns a message Run stopped waiting for the store with: Nak, for another
// consumer to take it at once (JetStream counts that delivery).
func (c *Consumer) giveBack(d Delivery, stop func()) {
	stop()
	c.ack(d, d.Nak())
}

// retryDelay is how long JetStream is asked to wait before the delivery after attempt:
// Options.RetryDelay doubled per attempt up to AckWait (30 s if the consumer has none); 0
// (at once) for a negative RetryDelay.
func (c *Consumer) retryDelay(attempt int) time.Duration {
	if c.opts.RetryDelay < 0 {
		return 0
	}
	limit := c.ackWait
	if limit <= 0 {
		limit = 30 * time.Second // JetStream's default AckWait
	}
	d := c.opts.RetryDelay
	for i := 1; i < attempt && d < limit; i++ {
		d *= 2
	}
	return min(d, limit)
}

// nak leaves d for its redelivery: on the consumer's BackOff schedule if it has one
// (JetStream redelivers an unacknowledged message after BackOff[attempt-1]; it would time
// a delayed Nak against that schedule too, and redeliver at once or late), else after
// retryDelay (NakWithDelay).
func (c *Consumer) nak(d Delivery) error {
	if len(c.backOff) > 0 {
		return nil
	}
	if delay := c.retryDelay(d.Attempt); delay > 0 {
		return d.NakWithDelay(delay)
	}
	return d.Nak()
}

// keepInProgress tells JetStream the message is being worked on every AckWait/2 until
// the returned function is called, so a long Processor is not raced by a redelivery.
func (c *Consumer) keepInProgress(m jetstream.Msg) (stop func()) {
	if c.ackWait <= 0 {
		return func() {}
	}
	var (
		mu      sync.Mutex
		stopped bool
		timer   *time.Timer
	)
	var tick func()
	tick = func() {
		mu.Lock()
		defer mu.Unlock()
		if !stopped {
			m.InProgress()
			timer = time.AfterFunc(c.ackWait/2, tick)
		}
	}
	mu.Lock()
	timer = time.AfterFunc(c.ackWait/2, tick)
	mu.Unlock()
	return func() {
		mu.Lock()
		defer mu.Unlock()
		stopped = true
		timer.Stop()
	}
}

// deadLetter publishes a copy of d to the dead-letter subject, if there is one, and
// terminates d. If the publish fails, d is not terminated but Nak'ed: a message with no
// key is delivered again, and one that reached MaxDeliver stays in the stream, delivered no
// more, as JetStream leaves any message past MaxDeliver (its MAX_DELIVERIES advisory names
// it); the error goes to OnError either way.
func (c *Consumer) deadLetter(ctx context.Context, d Delivery, reason string) {
	if c.opts.DeadLetterSubject != "" {
		msg := nats.NewMsg(c.opts.DeadLetterSubject)
		for k, v := range d.Headers() {
			if k == jetstream.MsgIDHeader {
				k = "Idgen-Dead-Msg-Id"
			}
			msg.Header[k] = v
		}
		msg.Header.Set(HeaderDeadReason, reason)
		msg.Header.Set(HeaderDeadFrom, c.from(d))
		msg.Data = d.Data()
		if _, err := c.js.PublishMsg(ctx, msg); err != nil {
			c.opts.OnError(d, fmt.Errorf("idjetstream: dead-lettering %s to %q: %w", c.describe(d), c.opts.DeadLetterSubject, err))
			c.ack(d, c.nak(d))
			return
		}
	}
	c.ack(d, d.Term())
}

func (c *Consumer) from(d Delivery) string {
	if d.Meta == nil {
		return d.Subject()
	}
	return d.Meta.Stream + " " + d.Subject() + " " + strconv.FormatUint(d.Meta.Sequence.Stream, 10)
}

func (c *Consumer) describe(d Delivery) string {
	if d.Meta == nil {
		return "on " + d.Subject()
	}
	return fmt.Sprintf("%d of stream %s", d.Meta.Sequence.Stream, d.Meta.Stream)
}

func (c *Consumer) observe(o consume.Outcome, redelivered bool) {
	c.stats.Delivered(o, redelivered)
	if c.opts.Observer != nil {
		c.opts.Observer.Delivered(o, redelivered)
	}
}

// ack reports a failed acknowledgement: JetStream redelivers the message after AckWait,
// and its Processor finds the key done.
func (c *Consumer) ack(d Delivery, err error) {
	if err != nil {
		c.opts.OnError(d, fmt.Errorf("idjetstream: acknowledging %s: %w", c.describe(d), err))
	}
}

// FailedError is a Processor's error for one message, reported to Options.OnError.
type FailedError struct {
	Key string
	// Attempt is the message's delivery count (1 for the first).
	Attempt int
	// Terminated says the message reached MaxDeliver and was terminated (and
	// dead-lettered if Options.DeadLetterSubject is set); otherwise it was redelivered.
	Terminated bool
	// Paused says the store was unavailable (consume.Unavailable): the Consumer paused,
	// keeps the message in progress and tries it again, and JetStream counts no delivery.
	Paused bool
	// Err is the Processor's error.
	Err error
}

// Error implements error.
func (e *FailedError) Error() string {
	what := "redelivered"
	switch {
	case e.Terminated:
		what = "terminated"
	case e.Paused:
		what = "the store is unavailable, paused, held and tried again without counting"
	}
	return fmt.Sprintf("idjetstream: message %q failed on attempt %d, %s: %v", e.Key, e.Attempt, what, e.Err)
}

// Unwrap returns the Processor's error.
func (e *FailedError) Unwrap() error { return e.Err }
