package idrabbit

import (
	"errors"
	"fmt"

	amqp "github.com/rabbitmq/amqp091-go"
)

// QueueOptions configures DeclareQueue.
type QueueOptions struct {
	// DeadLetterQueue is the queue that receives rejected messages (a poison message, one
	// without a key); name + ".dead" if empty. It is declared too, as a durable quorum
	// queue without limits.
	DeadLetterQueue string
	// DeliveryLimit is the queue's x-delivery-limit: after that many returns RabbitMQ
	// dead-letters a message itself, even one that kills every consumer before it can
	// fail. Keep it above the Consumer's MaxAttempts, which dead-letters a message that
	// fails; 2*DefaultMaxAttempts if zero.
	DeliveryLimit int
	// Args are more queue arguments, added to those DeclareQueue sets.
	Args amqp.Table
}

// DeclareQueue declares name as a durable quorum queue whose rejected messages go through
// the default exchange to opts.DeadLetterQueue, also declared, and returns both. A quorum
// queue counts a message's deliveries (x-delivery-count), which is how a Consumer knows
// when to stop requeueing; see the package doc. Declaring an existing queue with other
// arguments fails with RabbitMQ's PRECONDITION_FAILED, and closes ch.
func DeclareQueue(ch *amqp.Channel, name string, opts QueueOptions) (q, dead amqp.Queue, err error) {
	if name == "" {
		return q, dead, errors.New("idrabbit: DeclareQueue needs a queue name")
	}
	if opts.DeadLetterQueue == "" {
		opts.DeadLetterQueue = name + ".dead"
	}
	if opts.DeliveryLimit <= 0 {
		opts.DeliveryLimit = 2 * DefaultMaxAttempts
	}
	dead, err = ch.QueueDeclare(opts.DeadLetterQueue, true, false, false, false, amqp.Table{amqp.QueueTypeArg: amqp.QueueTypeQuorum})
	if err != nil {
		return q, dead, fmt.Errorf("idrabbit: declaring the dead-letter queue %q: %w", opts.DeadLetterQueue, err)
	}
	args := amqp.Table{
		amqp.QueueTypeArg:           amqp.QueueTypeQuorum,
		"x-dead-letter-exchange":    "",
		"x-dead-letter-routing-key": opts.DeadLetterQueue,
		"x-delivery-limit":          int64(opts.DeliveryLimit),
	}
	for k, v := range opts.Args {
		args[k] = v
	}
	q, err = ch.QueueDeclare(name, true, false, false, false, args)
	if err != nil {
		return q, dead, fmt.Errorf("idrabbit: declaring queue %q: %w", name, err)
	}
	return q, dead, nil
}
