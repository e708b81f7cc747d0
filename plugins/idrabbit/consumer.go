package idrabbit

import (
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync/atomic"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/idgen/idgen/runtime/consume"
	"github.com/idgen/idgen/runtime/ledger"
)

// Delivery is a message as a Processor sees it. The Consumer acknowledges it: a handler
// must not call its Ack, Nack or Reject.
type Delivery struct {
	// Key is the message's key: its message ID, or the header Options.KeyHeader. The
	// Processor is given it scoped by the consumer's name (Options.Name) to record.
	Key string
	// Attempt is 1 for a first try, one more for each try whose Processor failed (the
	// Consumer counts those itself), and, on a delivery RabbitMQ marks as redelivered,
	// more by the deliveries RabbitMQ counted before it (x-delivery-count, which quorum
	// queues set; a producer's x-delivery-count on a first delivery is ignored). A try
	// that failed because the store was unavailable (consume.Unavailable) is not counted.
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
	// DefaultRetryDelay is the wait before the second try of a message whose Processor
	// failed; it doubles with each further try, up to MaxRetryDelay.
	DefaultRetryDelay = 250 * time.Millisecond
	// DefaultMaxInFlightBytes bounds the bodies a Consumer holds, received and not yet
	// settled, when Options.MaxInFlightBytes is zero.
	DefaultMaxInFlightBytes = 16 << 20
)

// MaxRetryDelay is the longest wait between two tries of a failing message.
const MaxRetryDelay = time.Minute

// Options configures a Consumer. Queue is required.
type Options struct {
	// Queue is the queue to consume.
	Queue string
	// Name scopes the keys the Consumer's Processor records (ledger.ScopedKey):
	// "rabbitmq:" followed by Queue if empty. Consumers of different queues thus never
	// take each other's message IDs for done, even with one ledger; consumers that must
	// (one queue renamed to another) set the same Name.
	Name string
	// ConsumerTag names the consumer to RabbitMQ; a unique tag if empty. The Consumer
	// consumes again when it changes its prefetch (see MaxInFlightBytes), with the tag
	// followed by "." and a number.
	ConsumerTag string
	// Prefetch is the most unacknowledged deliveries RabbitMQ sends ahead (basic.qos);
	// DefaultPrefetch if zero.
	Prefetch int
	// MaxInFlightBytes bounds the bodies of the deliveries the Consumer holds (received,
	// not yet acknowledged or rejected): it lowers the prefetch to as many deliveries of
	// the largest body among the latest Prefetch as fit, down to one, and raises it again
	// when bodies shrink. DefaultMaxInFlightBytes if zero; negative for no bound but
	// Prefetch. A single body larger than the bound is still received, alone.
	MaxInFlightBytes int64
	// Concurrency is how many deliveries are processed at once; DefaultConcurrency if
	// zero. Deliveries of one key processed at once serialise in the Processor.
	Concurrency int
	// KeyHeader names the header that holds the key; the message-id property if empty.
	// A header's value may be a string, a byte slice or an integer.
	KeyHeader string
	// NoKey routes a message that has no key; NoKeyReject if zero.
	NoKey NoKeyAction
	// MaxAttempts is the attempt at which a failing delivery is dead-lettered (rejected
	// without requeue) instead of tried again; DefaultMaxAttempts if zero, and 1
	// dead-letters at the first failure.
	MaxAttempts int
	// RetryDelay is the wait before a failed delivery is tried again, doubling with each
	// further try, up to MaxRetryDelay; the Consumer holds the delivery meanwhile (it
	// stays unacknowledged, and takes one of the Prefetch). DefaultRetryDelay if zero;
	// negative to try again at once.
	RetryDelay time.Duration
	// Gate pauses the Consumer while its store is unavailable; a Gate of its own with
	// the consume defaults if nil.
	Gate *consume.Gate
	// OnError hears every error: a Processor's (a *FailedError), a message without a key
	// (a *consume.NoKeyError), a failed acknowledgement. It is called from the workers,
	// concurrently. Nil logs them with slog.Default at level Warn.
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
	gate  *consume.Gate
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
	return newConsumer(conn, p, opts), nil
}

// newConsumer fills in the defaults of opts.
func newConsumer(conn *amqp.Connection, p consume.Processor[Delivery], opts Options) *Consumer {
	if opts.Name == "" {
		opts.Name = "rabbitmq:" + opts.Queue
	}
	if opts.Prefetch <= 0 {
		opts.Prefetch = DefaultPrefetch
	}
	if opts.MaxInFlightBytes == 0 {
		opts.MaxInFlightBytes = DefaultMaxInFlightBytes
	}
	if opts.Concurrency <= 0 {
		opts.Concurrency = DefaultConcurrency
	}
	if opts.MaxAttempts <= 0 {
		opts.MaxAttempts = DefaultMaxAttempts
	}
	if opts.RetryDelay == 0 {
		opts.RetryDelay = DefaultRetryDelay
	}
	if opts.OnError == nil {
		opts.OnError = func(d Delivery, err error) {
			slog.Warn("idrabbit: delivery", "queue", opts.Queue, "key", d.Key, "attempt", d.Attempt, "err", err)
		}
	}
	gate := opts.Gate
	if gate == nil {
		gate = &consume.Gate{}
	}
	return &Consumer{conn: conn, proc: p, opts: opts, gate: gate}
}

// NewBatchConsumer returns a Consumer of opts.Queue on conn that processes up to
// opts.BatchSize deliveries at once through b (consume.OnceTxBatch: one transaction, one
// statement recording the keys), and acknowledges them after b returned. If b fails, the
// batch is processed again one delivery at a time through b.Processor(), so each delivery
// is acknowledged, retried or dead-lettered as NewConsumer's Consumer would; b must
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

// tags numbers the consumer tags Run makes up.
var tags atomic.Uint64

// delivery wraps raw. Only a redelivery's x-delivery-count is RabbitMQ's: on a first
// delivery the header, if any, is the producer's.
func (c *Consumer) delivery(raw amqp.Delivery) Delivery {
	d := Delivery{Attempt: 1, Delivery: raw}
	if raw.Redelivered {
		d.Attempt += deliveryCount(raw.Headers)
	}
	d.Key = c.key(&raw)
	return d
}

// recordKey is the key d's Processor records: its key scoped by the Consumer's name.
func (c *Consumer) recordKey(d Delivery) string { return ledger.ScopedKey(c.opts.Name, d.Key) }

// retryDelay is the wait after the failed try attempt: RetryDelay doubled attempt-1
// times, at most MaxRetryDelay; 0 for a negative RetryDelay.
func (c *Consumer) retryDelay(attempt int) time.Duration {
	d := c.opts.RetryDelay
	if d < 0 {
		return 0
	}
	for i := 1; i < attempt && d < MaxRetryDelay; i++ {
		d *= 2
	}
	return min(d, MaxRetryDelay)
}

// noKey counts and routes a delivery without a key.
func (c *Consumer) noKey(d Delivery) {
	raw := d.Delivery
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
}

// paused reports a try that failed because the store was unavailable.
func (c *Consumer) paused(d Delivery, err error) {
	c.observe(consume.Paused, d.Redelivered)
	c.opts.OnError(d, &FailedError{Queue: c.opts.Queue, Key: d.Key, Attempt: d.Attempt, Paused: true, Err: err})
}

// settle acknowledges d after its Processor returned: ack on success; on failure, a
// reject without requeue (a dead letter) at MaxAttempts, and otherwise retry is called
// with d's next attempt and the delay before it, the delivery still held.
func (c *Consumer) settle(d Delivery, ran bool, err error, retry func(d Delivery, after time.Duration)) {
	switch {
	case err == nil:
		if ran {
			c.observe(consume.Processed, d.Redelivered)
		} else {
			c.observe(consume.Duplicate, d.Redelivered)
		}
		c.ack(d, d.Ack(false))
	case d.Attempt >= c.opts.MaxAttempts:
		c.observe(consume.DeadLettered, d.Redelivered)
		c.opts.OnError(d, &FailedError{Queue: c.opts.Queue, Key: d.Key, Attempt: d.Attempt, DeadLettered: true, Err: err})
		c.ack(d, d.Reject(false))
	default:
		c.observe(consume.Failed, d.Redelivered)
		c.opts.OnError(d, &FailedError{Queue: c.opts.Queue, Key: d.Key, Attempt: d.Attempt, Err: err})
		after := c.retryDelay(d.Attempt)
		d.Attempt++
		retry(d, after)
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
	var n int64
	switch v := h["x-delivery-count"].(type) {
	case int64:
		n = v
	case int32:
		n = int64(v)
	case int:
		n = int64(v)
	}
	return int(max(0, min(n, 1<<30)))
}

// FailedError is a Processor's error for one delivery, reported to Options.OnError.
type FailedError struct {
	Queue, Key string
	// Attempt is the delivery's attempt (1 for the first).
	Attempt int
	// DeadLettered says the delivery reached MaxAttempts and was rejected without
	// requeue; otherwise it is tried again.
	DeadLettered bool
	// Paused says the store was unavailable (consume.Unavailable): the Consumer paused,
	// holds the delivery and tries it again without counting the attempt.
	Paused bool
	// Err is the Processor's error.
	Err error
}

// Error implements error.
func (e *FailedError) Error() string {
	what := "to be tried again"
	switch {
	case e.DeadLettered:
		what = "dead-lettered"
	case e.Paused:
		what = "the store is unavailable, paused, to be tried again without counting"
	}
	return fmt.Sprintf("idrabbit: %s: message %q failed on attempt %d, %s: %v", e.Queue, e.Key, e.Attempt, what, e.Err)
}

// Unwrap returns the Processor's error.
func (e *FailedError) Unwrap() error { return e.Err }
