package idrabbit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"sync"
	"sync/atomic"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/idgen/idgen/runtime/consume"
)

// Delivery is a message as a Processor sees it. The Consumer acknowledges it: a handler
// must not call its Ack, Nack or Reject.
type Delivery struct {
	// Key is the message's key: its message ID, or the header Options.KeyHeader.
	Key string
	// Attempt is 1 for a first delivery, and one more than RabbitMQ's x-delivery-count
	// on a redelivery from a quorum queue.
	Attempt int
	amqp.Delivery
}

// NoKeyAction says what a Consumer does with a message that has no key.
type NoKeyAction uint8

const (
	// NoKeyReject rejects the message without requeue: the queue dead-letters it if it
	// has a dead-letter exchange (DeclareQueue gives it one), and drops it otherwise.
	NoKeyReject NoKeyAction = iota
	// NoKeyDrop acknowledges the message, which removes it from the queue.
	NoKeyDrop
)

// Defaults of Options.
const (
	DefaultPrefetch    = 64
	DefaultConcurrency = 8
	DefaultMaxAttempts = 5
)

// Options configures a Consumer. Queue is required.
type Options struct {
	// Queue is the queue to consume.
	Queue string
	// ConsumerTag names the consumer to RabbitMQ; a unique tag if empty.
	ConsumerTag string
	// Prefetch is how many unacknowledged deliveries RabbitMQ sends ahead (basic.qos);
	// DefaultPrefetch if zero.
	Prefetch int
	// Concurrency is how many deliveries are processed at once; DefaultConcurrency if
	// zero. Deliveries of one key processed at once serialise in the Processor.
	Concurrency int
	// KeyHeader names the header that holds the key; the message-id property if empty.
	// A header's value may be a string, a byte slice or an integer.
	KeyHeader string
	// NoKey routes a message that has no key; NoKeyReject if zero.
	NoKey NoKeyAction
	// MaxAttempts is the attempt at which a failing delivery is dead-lettered instead of
	// requeued; DefaultMaxAttempts if zero, and 1 dead-letters at the first failure.
	// Attempts are counted only in quorum queues (see the package doc).
	MaxAttempts int
	// OnError hears every error: a Processor's (with the attempt), a message without a
	// key (a *consume.NoKeyError), a failed acknowledgement. It is called from the
	// workers, concurrently. Nil logs them with slog.Default at level Warn.
	OnError func(d Delivery, err error)
	// Observer, if set, hears every outcome besides the Consumer's own Stats.
	Observer consume.Observer
	// BatchSize is the most deliveries a Consumer made by NewBatchConsumer processes in
	// one call of its Batch (one transaction with OnceTxBatch);
	// consume.DefaultBatchSize if zero, and never more than Prefetch. A batch is what
	// RabbitMQ has delivered while the workers were busy: no delivery waits for a batch
	// to fill. Ignored by NewConsumer's Consumers.
	BatchSize int
}

// ErrNoQueue is returned by NewConsumer when Options.Queue is empty.
var ErrNoQueue = errors.New("idrabbit: Options.Queue is empty")

// ErrRecovery is returned by NewConsumer for a connection dialled with amqp.Config.Recovery:
// amqp091-go would reopen the consumer's channel after a connection loss without Run
// knowing, and a delivery received before it would then be acknowledged by its tag on the
// new channel, where tags start again at 1: the acknowledgement of one message would
// settle another, unprocessed, which RabbitMQ would then never deliver again. Dial without
// Recovery and call Run again on a new connection when it returns.
var ErrRecovery = errors.New("idrabbit: the connection recovers its channels by itself (amqp.Config.Recovery); the consumer needs one that does not")

// ErrCancelled is returned by Run when RabbitMQ cancelled the consumer (basic.cancel): the
// queue was deleted, or its node went down. The deliveries already received were handled
// and acknowledged; call Run again once the queue is back.
var ErrCancelled = errors.New("idrabbit: RabbitMQ cancelled the consumer")

// Consumer processes the deliveries of one queue through a Processor; see the package
// doc. Stats is safe to call while Run runs.
type Consumer struct {
	conn  *amqp.Connection
	proc  consume.Processor[Delivery]
	batch consume.Batch[Delivery] // nil: one delivery at a time
	opts  Options
	stats consume.Stats
}

// NewConsumer returns a Consumer of opts.Queue on conn; Run starts it.
func NewConsumer(conn *amqp.Connection, p consume.Processor[Delivery], opts Options) (*Consumer, error) {
	if conn == nil || p == nil {
		return nil, errors.New("idrabbit: NewConsumer needs a connection and a Processor")
	}
	if opts.Queue == "" {
		return nil, ErrNoQueue
	}
	if conn.IsRecoveryEnabled() {
		return nil, ErrRecovery
	}
	if opts.Prefetch <= 0 {
		opts.Prefetch = DefaultPrefetch
	}
	if opts.Concurrency <= 0 {
		opts.Concurrency = DefaultConcurrency
	}
	if opts.MaxAttempts <= 0 {
		opts.MaxAttempts = DefaultMaxAttempts
	}
	if opts.OnError == nil {
		opts.OnError = func(d Delivery, err error) {
			slog.Warn("idrabbit: delivery", "queue", opts.Queue, "key", d.Key, "attempt", d.Attempt, "err", err)
		}
	}
	return &Consumer{conn: conn, proc: p, opts: opts}, nil
}

// NewBatchConsumer returns a Consumer of opts.Queue on conn that processes up to
// opts.BatchSize deliveries at once through b (consume.OnceTxBatch: one transaction, one
// statement recording the keys), and acknowledges them after b returned. If b fails, the
// batch is processed again one delivery at a time through b.Processor(), so each delivery
// is acknowledged, requeued or dead-lettered as NewConsumer's Consumer would; b must
// therefore commit nothing when it fails. Run starts it.
func NewBatchConsumer(conn *amqp.Connection, b consume.Batch[Delivery], opts Options) (*Consumer, error) {
	if b == nil {
		return nil, errors.New("idrabbit: NewBatchConsumer needs a Batch")
	}
	c, err := NewConsumer(conn, b.Processor(), opts)
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

// Run consumes the queue until ctx ends, then cancels the consumer, finishes the deliveries
// already received and returns nil; or until RabbitMQ cancels the consumer (ErrCancelled),
// or the channel or connection closes, and returns an error matching *amqp.Error when
// RabbitMQ said why. Processors run with a context that ctx's end does not cancel, so that
// work under way commits and is acknowledged. Run may be called again after it returned, on
// a working connection.
func (c *Consumer) Run(ctx context.Context) error {
	ch, err := c.conn.Channel()
	if err != nil {
		return fmt.Errorf("idrabbit: opening a channel: %w", err)
	}
	defer ch.Close()
	closed := ch.NotifyClose(make(chan *amqp.Error, 1))
	// amqp091-go tells cancels before it closes the deliveries, and closes this when the
	// channel closes.
	cancelled := ch.NotifyCancel(make(chan string, 1))
	if err := ch.Qos(c.opts.Prefetch, 0, false); err != nil {
		return fmt.Errorf("idrabbit: setting the prefetch: %w", err)
	}
	tag := c.opts.ConsumerTag
	if tag == "" {
		tag = fmt.Sprintf("idrabbit-%d-%d", os.Getpid(), tags.Add(1))
	}
	deliveries, err := ch.Consume(c.opts.Queue, tag, false, false, false, false, nil)
	if err != nil {
		return fmt.Errorf("idrabbit: consuming %q: %w", c.opts.Queue, err)
	}
	work := context.WithoutCancel(ctx)
	var wg sync.WaitGroup
	if c.batch == nil {
		for range c.opts.Concurrency {
			wg.Go(func() {
				for d := range deliveries {
					c.handle(work, c.delivery(d))
				}
			})
		}
	} else {
		batches := consume.Batches(deliveries, c.opts.BatchSize)
		for range c.opts.Concurrency {
			wg.Go(func() {
				for b := range batches {
					c.handleBatch(work, b)
				}
			})
		}
	}
	// Cancel makes RabbitMQ stop sending, and the library close deliveries once what it
	// already received is handed out, so every worker ends after its last delivery.
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
		// deliveries closed: RabbitMQ cancelled the consumer, or the channel or the
		// connection went away.
		var e *amqp.Error
		select {
		case e = <-closed:
		case _, ok := <-cancelled:
			if ok {
				return fmt.Errorf("idrabbit: consuming %q: %w", c.opts.Queue, ErrCancelled)
			}
			e = <-closed // the channel closed: closed has the reason, or is closed too
		}
		if e != nil {
			return fmt.Errorf("idrabbit: consuming %q: %w", c.opts.Queue, e)
		}
		return fmt.Errorf("idrabbit: consuming %q: %w", c.opts.Queue, amqp.ErrClosed)
	case <-ctx.Done():
	}
	if err := ch.Cancel(tag, false); err != nil {
		<-done
		return fmt.Errorf("idrabbit: cancelling the consumer of %q: %w", c.opts.Queue, err)
	}
	<-done
	return nil
}

// tags numbers the consumer tags Run makes up.
var tags atomic.Uint64

// delivery wraps raw.
func (c *Consumer) delivery(raw amqp.Delivery) Delivery {
	d := Delivery{Attempt: 1 + deliveryCount(raw.Headers), Delivery: raw}
	d.Key = c.key(&raw)
	return d
}

// handleBatch processes deliveries in one call of the Batch and acknowledges them after
// it returned; if it failed, it handles them one by one. A delivery without a key is
// handled alone, as it would be without batching.
func (c *Consumer) handleBatch(ctx context.Context, raws []amqp.Delivery) {
	ds := make([]Delivery, 0, len(raws))
	keys := make([]string, 0, len(raws))
	for _, raw := range raws {
		d := c.delivery(raw)
		if d.Key == "" {
			c.handle(ctx, d)
			continue
		}
		ds = append(ds, d)
		keys = append(keys, d.Key)
	}
	if len(ds) <= 1 {
		for _, d := range ds {
			c.handle(ctx, d)
		}
		return
	}
	ran, err := c.batch(ctx, keys, ds)
	if err != nil {
		// Nothing of the batch committed: each delivery alone gets what it would have got
		// without batching, the failing one its requeue or dead letter.
		for _, d := range ds {
			c.handle(ctx, d)
		}
		return
	}
	for i, d := range ds { // after the commit
		if ran[i] {
			c.observe(consume.Processed, d.Redelivered)
		} else {
			c.observe(consume.Duplicate, d.Redelivered)
		}
		c.ack(d, d.Ack(false))
	}
}

// handle processes one delivery and acknowledges it, or rejects it with or without
// requeue.
func (c *Consumer) handle(ctx context.Context, d Delivery) {
	raw := d.Delivery
	if d.Key == "" {
		c.observe(consume.NoKey, raw.Redelivered)
		source := "message-id property"
		if c.opts.KeyHeader != "" {
			source = "header " + strconv.Quote(c.opts.KeyHeader)
		}
		c.opts.OnError(d, &consume.NoKeyError{Source: source, Message: "with delivery tag " + strconv.FormatUint(raw.DeliveryTag, 10)})
		if c.opts.NoKey == NoKeyDrop {
			c.ack(d, raw.Ack(false))
		} else {
			c.ack(d, raw.Reject(false))
		}
		return
	}
	ran, err := c.proc(ctx, d.Key, d)
	switch {
	case err == nil:
		if ran {
			c.observe(consume.Processed, raw.Redelivered)
		} else {
			c.observe(consume.Duplicate, raw.Redelivered)
		}
		c.ack(d, raw.Ack(false))
	case d.Attempt >= c.opts.MaxAttempts:
		c.observe(consume.DeadLettered, raw.Redelivered)
		c.opts.OnError(d, &FailedError{Queue: c.opts.Queue, Key: d.Key, Attempt: d.Attempt, DeadLettered: true, Err: err})
		c.ack(d, raw.Reject(false))
	default:
		c.observe(consume.Failed, raw.Redelivered)
		c.opts.OnError(d, &FailedError{Queue: c.opts.Queue, Key: d.Key, Attempt: d.Attempt, Err: err})
		// basic.reject, not basic.nack: from RabbitMQ 4.3 only a reject (or a closed
		// channel) counts as a failed delivery in x-delivery-count; a nack is "not
		// processed", so a message that always fails would be requeued forever.
		c.ack(d, raw.Reject(true))
	}
}

func (c *Consumer) observe(o consume.Outcome, redelivered bool) {
	c.stats.Delivered(o, redelivered)
	if c.opts.Observer != nil {
		c.opts.Observer.Delivered(o, redelivered)
	}
}

// ack reports a failed acknowledgement: the channel is gone, RabbitMQ redelivers the
// message, and its Processor finds the key done.
func (c *Consumer) ack(d Delivery, err error) {
	if err != nil {
		c.opts.OnError(d, fmt.Errorf("idrabbit: acknowledging %q: %w", d.Key, err))
	}
}

// key returns the delivery's key, or "".
func (c *Consumer) key(d *amqp.Delivery) string {
	if c.opts.KeyHeader == "" {
		return d.MessageId
	}
	switch v := d.Headers[c.opts.KeyHeader].(type) {
	case string:
		return v
	case []byte:
		return string(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case int32:
		return strconv.FormatInt(int64(v), 10)
	case int:
		return strconv.Itoa(v)
	}
	return ""
}

// deliveryCount reads x-delivery-count, which quorum queues set on redeliveries.
func deliveryCount(h amqp.Table) int {
	switch v := h["x-delivery-count"].(type) {
	case int64:
		return int(v)
	case int32:
		return int(v)
	case int:
		return v
	}
	return 0
}

// FailedError is a Processor's error for one delivery, reported to Options.OnError.
type FailedError struct {
	Queue, Key string
	// Attempt is the delivery's attempt (1 for the first).
	Attempt int
	// DeadLettered says the delivery reached MaxAttempts and was rejected without
	// requeue; otherwise it was requeued.
	DeadLettered bool
	// Err is the Processor's error.
	Err error
}

// Error implements error.
func (e *FailedError) Error() string {
	what := "requeued"
	if e.DeadLettered {
		what = "dead-lettered"
	}
	return fmt.Sprintf("idrabbit: %s: message %q failed on attempt %d, %s: %v", e.Queue, e.Key, e.Attempt, what, e.Err)
}

// Unwrap returns the Processor's error.
func (e *FailedError) Unwrap() error { return e.Err }
