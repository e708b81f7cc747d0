package idrabbit

import (
	"context"
	"errors"
	"fmt"

	amqp "github.com/rabbitmq/amqp091-go"
)

// ErrNacked is returned by Publisher.Publish when RabbitMQ refused the message (a
// publisher-confirm nack): publish it again, with the same key.
var ErrNacked = errors.New("idrabbit: RabbitMQ nacked the message")

// Publisher publishes messages with their key as message ID, on a channel in confirm
// mode, so a producer knows when RabbitMQ has taken a message and can retry one it does not
// know about: the retry carries the same key, and the Consumer's Processor runs its effect
// once. Safe for concurrent use, as its channel is.
type Publisher struct {
	ch *amqp.Channel
}

// NewPublisher puts ch in confirm mode and returns a Publisher on it.
func NewPublisher(ch *amqp.Channel) (*Publisher, error) {
	if err := ch.Confirm(false); err != nil {
		return nil, fmt.Errorf("idrabbit: confirm mode: %w", err)
	}
	return &Publisher{ch: ch}, nil
}

// PublishAsync publishes msg with MessageId key and persistent delivery mode (unless msg
// sets one), and returns the confirmation to wait for, so many publishes can be in flight.
func (p *Publisher) PublishAsync(ctx context.Context, exchange, routingKey, key string, msg amqp.Publishing) (*amqp.DeferredConfirmation, error) {
	if key == "" {
		return nil, errors.New("idrabbit: publishing a message with an empty key")
	}
	msg.MessageId = key
	if msg.DeliveryMode == 0 {
		msg.DeliveryMode = amqp.Persistent
	}
	dc, err := p.ch.PublishWithDeferredConfirmWithContext(ctx, exchange, routingKey, false, false, msg)
	if err != nil {
		return nil, fmt.Errorf("idrabbit: publishing %q: %w", key, err)
	}
	return dc, nil
}

// Publish publishes msg as PublishAsync does and waits for RabbitMQ's confirmation: nil
// once RabbitMQ has taken the message, ErrNacked if it refused it.
func (p *Publisher) Publish(ctx context.Context, exchange, routingKey, key string, msg amqp.Publishing) error {
	dc, err := p.PublishAsync(ctx, exchange, routingKey, key, msg)
	if err != nil {
		return err
	}
	ok, err := dc.WaitContext(ctx)
	if err != nil {
		return fmt.Errorf("idrabbit: waiting for the confirmation of %q: %w", key, err)
	}
	if !ok {
		return fmt.Errorf("idrabbit: %q: %w", key, ErrNacked)
	}
	return nil
}
