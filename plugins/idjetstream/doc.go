// Package idjetstream consumes NATS JetStream with github.com/nats-io/nats.go/jetstream so
// that each message's effect happens once: messages are acknowledged explicitly, and only
// after the effect committed; a failure is redelivered after a delay (NakWithDelay:
// Options.RetryDelay doubling per attempt, or the consumer's BackOff) until the consumer's
// MaxDeliver, where the message is terminated (and, if Options.DeadLetterSubject is set,
// published there first) with nothing recorded as done.
//
// Two windows of deduplication work together. On the publish side, Publish sets the
// Nats-Msg-Id header to the message key, so JetStream drops a producer's retry within the
// stream's duplicate window (StreamConfig.Duplicates, two minutes by default). On the
// consume side, the consume.Processor dedupes by the same key for as long as its store
// remembers it (days, with ledger.Ledger), which covers what the window does not: a retry
// after the window, and redeliveries, which JetStream makes whenever an acknowledgement
// did not arrive within AckWait (a consumer that died, or was slow).
//
//	ledger, _ := ledger.New(sqldb.Postgres, ledger.Options{})
//	cons, _ := js.CreateOrUpdateConsumer(ctx, "ORDERS", jetstream.ConsumerConfig{
//		Durable: "orders", AckPolicy: jetstream.AckExplicitPolicy,
//		AckWait: 30 * time.Second, MaxDeliver: 5,
//	})
//	c, err := idjetstream.NewConsumer(js, cons, consume.OnceTx(db, ledger,
//		func(ctx context.Context, tx *sql.Tx, d idjetstream.Delivery) error {
//			_, err := tx.ExecContext(ctx, "INSERT INTO orders (no, body) VALUES ($1, $2)", d.Key, d.Data())
//			return err
//		}), idjetstream.Options{})
//	err = c.Run(ctx) // until ctx ends or the connection closes
//
// consume.OnceTx records the key in the effect's own transaction (exactly-once effects for
// work in SQL; see Batches for the faster form); consume.Once claims it in an idem.Store (for effects outside the database);
// consume.AtLeastOnce does neither.
//
// # Keys
//
// A message's key is its Nats-Msg-Id header, or the header Options.KeyHeader names. A
// message with no key cannot be deduplicated: it is never processed, it is counted
// (consume.NoKey), reported to Options.OnError as a *consume.NoKeyError, and routed by
// Options.NoKey: terminated (NoKeyTerm, the default: JetStream never redelivers it),
// published to Options.DeadLetterSubject and terminated (NoKeyDeadLetter), or left for
// redelivery after AckWait (NoKeyNak, for a producer known to add keys later: it is counted
// at each delivery until MaxDeliver). The Processor records the key scoped by
// Options.Name (ledger.ScopedKey; "jetstream:", the stream and, for a durable consumer, "."
// and its name, by default), so that consumers of two streams, or two durables of one,
// sharing a ledger never take each other's message IDs for done.
//
// # Store outages
//
// A Processor error that consume.Unavailable recognises (a refused, reset or closed
// connection, a server shutting down or starting up, a timeout, a deadlock) is the
// store's, not the message's: the Consumer pauses (Options.Gate, consume.Gate): no worker
// starts another message, one probes the store every 50 ms at first, doubling up to 1 s,
// with its message, and the first try that succeeds resumes all. The messages wait in
// progress (InProgress every AckWait/2), neither Nak'ed nor terminated, so JetStream
// neither redelivers them nor counts a delivery: an outage terminates nothing, whatever
// MaxDeliver. A failure that looks like the store's while the store serves other messages
// counts (consume.ProvenUp). Messages pulled ahead and not yet taken by a worker are not
// kept in progress: an outage longer than AckWait redelivers them once when the consumer
// pulls again (one delivery counted, for at most Prefetch messages per consumer).
//
// # Acknowledgement
//
// The consumer must use AckExplicitPolicy; NewConsumer reads its AckWait and MaxDeliver.
// Run pulls up to Options.Prefetch messages ahead and processes up to Options.Concurrency
// at once. AckWait runs from the delivery: a message is kept with InProgress every half
// AckWait from the moment Run takes it from the iterator, while it waits for a worker or
// a batch and while it is processed, so it is not redelivered to another consumer
// meanwhile. The messages pulled ahead and not taken yet are not: keep Prefetch ×
// (processing time) / Concurrency under AckWait/2, or they are redelivered while they
// wait (harmless to the effect, which the key makes happen once, but each redelivery
// counts toward MaxDeliver). Each is acknowledged after its Processor returned nil: the
// effect committed or was already done. The acknowledgement is not waited for: if it is
// lost, JetStream redelivers the message after AckWait and the Processor finds its key
// done. When ctx ends, Run stops pulling, finishes the messages it already received (those
// waiting for an unavailable store are given back with Nak), and returns.
package idjetstream
