package idjetstream

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
)

// errEmptyKey is returned for a publish without a key.
var errEmptyKey = errors.New("idjetstream: publishing a message with an empty key")

// Publish publishes data to subject with key as its Nats-Msg-Id, and returns JetStream's
// acknowledgement: PubAck.Duplicate is true when the stream already had key within its
// duplicate window and dropped this copy. A producer that retries a publish it is not sure
// of publishes with the same key.
func Publish(ctx context.Context, js jetstream.JetStream, subject, key string, data []byte, opts ...jetstream.PublishOpt) (*jetstream.PubAck, error) {
	if key == "" {
		return nil, errEmptyKey
	}
	ack, err := js.Publish(ctx, subject, data, append(opts, jetstream.WithMsgID(key))...)
	if err != nil {
		return nil, fmt.Errorf("idjetstream: publishing %q: %w", key, err)
	}
	return ack, nil
}

// PublishAsync is Publish without waiting: the future yields the acknowledgement, or the
// error after which to publish again with the same key.
func PublishAsync(js jetstream.JetStream, subject, key string, data []byte, opts ...jetstream.PublishOpt) (jetstream.PubAckFuture, error) {
	if key == "" {
		return nil, errEmptyKey
	}
	f, err := js.PublishAsync(subject, data, append(opts, jetstream.WithMsgID(key))...)
	if err != nil {
		return nil, fmt.Errorf("idjetstream: publishing %q: %w", key, err)
	}
	return f, nil
}
