// Package idrabbit consumes RabbitMQ queues with github.com/rabbitmq/amqp091-go so that each
// message's effect happens once: deliveries are acknowledged manually, and only after the
// effect committed; a failure is requeued, and a message that fails MaxAttempts times is
// dead-lettered with nothing recorded as done.
//
// A Consumer reads a queue through a consume.Processor from github.com/idgen/idgen/runtime/consume,
// which decides how a message's key makes the effect happen once:
//
//	l, _ := ledger.New(idem.Postgres, ledger.Options{})
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
// # Poison messages
//
// RabbitMQ counts the deliveries of a message only in quorum queues (the x-delivery-count
// header); DeclareQueue declares one, with a dead-letter queue and a delivery limit. A
// delivery whose processing fails is requeued (basic.reject with requeue) until its
// attempt, the count plus one, reaches Options.MaxAttempts; then it is rejected without
// requeue, which the queue dead-letters. A reject, not a nack: from RabbitMQ 4.3 a quorum
// queue counts only failed deliveries (a reject, a closed channel), and a nack requeues
// without counting. The queue's own x-delivery-limit, set above MaxAttempts, stops a
// message that kills its consumer before it can fail. A classic queue sends no count: its
// failures are requeued without limit.
//
// # Acknowledgement
//
// Run opens a channel of its own on the connection, sets the prefetch (basic.qos) to
// Options.Prefetch, and processes up to Options.Concurrency deliveries at once. Each is
// acknowledged after its Processor returned nil: the effect committed or was already done.
// A consumer killed before the ack leaves the message unacknowledged, RabbitMQ delivers it
// again, and the Processor finds its key done. When ctx ends, Run cancels the consumer,
// finishes the deliveries RabbitMQ already sent, and closes the channel. When RabbitMQ
// cancels the consumer (its queue deleted, its node down) Run finishes what it received
// and returns ErrCancelled; when the channel or the connection closes, an error saying why.
// Either way the caller calls Run again, on a new connection if need be: the connection
// must not be dialled with amqp.Config.Recovery (NewConsumer returns ErrRecovery), because
// a delivery received before amqp091-go reopened the channel would be acknowledged by its
// tag on the new channel, settling another message.
package idrabbit
