// Package idrabbit consumes RabbitMQ queues with github.com/rabbitmq/amqp091-go so that each
// message's effect happens once: deliveries are acknowledged manually, and only after the
// effect committed; a failure is tried again, and a message that fails MaxAttempts times is
// dead-lettered with nothing recorded as done. A store outage spends no attempt.
//
// A Consumer reads a queue through a consume.Processor from github.com/idgen/idgen/runtime/consume,
// which decides how a message's key makes the effect happen once:
//
//	l, _ := ledger.New(sqldb.Postgres, ledger.Options{})
//	c, err := idrabbit.NewConsumer(conn, consume.OnceTx(db, l,
//		func(ctx context.Context, tx *sql.Tx, d idrabbit.Delivery) error {
//			_, err := tx.ExecContext(ctx, "INSERT INTO orders (no, body) VALUES ($1, $2)", d.Key, d.Body)
//			return err
//		}), idrabbit.Options{Queue: "orders"})
//	err = c.Run(ctx) // until ctx ends or the channel closes
//
// consume.OnceTx records the key in the effect's own transaction (exactly-once effects for
// work in SQL; see Batches for the faster form); consume.Once claims it in an idem.Store (for effects outside the database);
// consume.AtLeastOnce does neither.
//
// # Keys
//
// A message's key is its message-id property (amqp.Publishing.MessageId), or the header
// Options.KeyHeader names. Publisher.Publish sets the message ID, so a producer that retries
// a publish after a lost confirm sends the same key twice and the effect still happens
// once. A message with no key cannot be deduplicated: it is never processed, it is counted
// (consume.NoKey), reported to Options.OnError as a *consume.NoKeyError, and routed by
// Options.NoKey: rejected to the queue's dead-letter exchange (NoKeyReject, the default) or
// acknowledged and dropped (NoKeyDrop).
//
// The Processor records the key scoped by Options.Name (ledger.ScopedKey; "rabbitmq:" and
// the queue by default), so that consumers of two queues sharing a ledger never take one
// queue's message ID for done on the other.
//
// # Poison messages
//
// The Consumer counts a delivery's attempts itself: a delivery whose Processor fails is
// held (unacknowledged) and tried again after Options.RetryDelay, doubling, until its
// attempt reaches Options.MaxAttempts; then it is rejected without requeue, which the
// queue dead-letters. So a classic queue, which counts no deliveries, dead-letters a poison
// message as a quorum queue does. A redelivery (a consumer died holding the message) starts
// from the deliveries RabbitMQ counted (x-delivery-count, on quorum queues; a producer's
// x-delivery-count on a first delivery is ignored), and the queue's own x-delivery-limit,
// which DeclareQueue sets above MaxAttempts, stops a message that kills its consumer before
// it can fail. A classic queue has no such limit.
//
// # Store outages
//
// A Processor error that consume.Unavailable recognises (a refused, reset or closed
// connection, a server shutting down or starting up, a timeout, a deadlock) is the
// store's, not the message's: the Consumer pauses (Options.Gate, consume.Gate): no worker
// starts another delivery, one probes the store every 50 ms at first, doubling up to 1 s,
// with its delivery, and the first try that succeeds resumes all; the deliveries wait
// unacknowledged, so RabbitMQ neither redelivers nor counts them, and stops sending once
// Prefetch are unacknowledged. No attempt is spent: an outage dead-letters nothing. A
// failure that looks like the store's while the store serves other messages counts
// (consume.ProvenUp). RabbitMQ's consumer_timeout (30 minutes by default) closes the
// channel of a consumer that holds a delivery longer: Run returns, and the deliveries go
// back to the queue, counted once.
//
// # Memory
//
// Options.MaxInFlightBytes (16 MiB by default) bounds the bodies the Consumer holds:
// RabbitMQ has no byte prefetch, so the Consumer starts with a prefetch of one, and then
// consumes with a prefetch that fits the bound at the largest body among the latest
// Prefetch (a power of two, at most Prefetch), consuming again when that changes. A
// message larger than the bound is received alone.
//
// # Acknowledgement
//
// Run opens a channel of its own on the connection, sets the prefetch (basic.qos), and
// processes up to Options.Concurrency deliveries at once. Each is acknowledged after its
// Processor returned nil: the effect committed or was already done.
// A consumer killed before the ack leaves the message unacknowledged, RabbitMQ delivers it
// again, and the Processor finds its key done. When ctx ends, Run cancels the consumer,
// finishes the deliveries RabbitMQ already sent, gives back (basic.nack with requeue) those
// waiting for a next try or for the store, and closes the channel. When RabbitMQ
// cancels the consumer (its queue deleted, its node down) Run finishes what it received
// and returns ErrCancelled; when the channel or the connection closes, an error saying why.
// Either way the caller calls Run again, on a new connection if need be: the connection
// must not be dialled with amqp.Config.Recovery (NewConsumer returns ErrRecovery), because
// a delivery received before amqp091-go reopened the channel would be acknowledged by its
// tag on the new channel, settling another message.
package idrabbit
