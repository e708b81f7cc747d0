package idotel

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/idgen/idgen/runtime/consume"
)

// Attributes of idgen.consumer.messages.
const (
	// ConsumerOutcomeKey names what became of a delivery: the consume.Outcome's name
	// (processed, duplicate, failed, dead_lettered, no_key, paused).
	ConsumerOutcomeKey = attribute.Key("idgen.consumer.outcome")
	// ConsumerRedeliveredKey says whether the broker marked the delivery as a redelivery.
	ConsumerRedeliveredKey = attribute.Key("idgen.consumer.redelivered")
)

// Consumer is a consume.Observer counting deliveries by outcome and redelivery; set it as
// the Observer of a broker adapter's Options (plugins/idrabbit, plugins/idjetstream). Safe
// for concurrent use.
type Consumer struct {
	messages metric.Int64Counter
	byOut    [consume.Paused + 1][2][]metric.AddOption
}

var _ consume.Observer = (*Consumer)(nil)

// NewConsumer makes the instrument idgen.consumer.messages.
func NewConsumer(opts Options) (*Consumer, error) {
	m := opts.meter()
	c := &Consumer{}
	for o := range c.byOut {
		for r := range c.byOut[o] {
			c.byOut[o][r] = []metric.AddOption{metric.WithAttributeSet(opts.set(
				ConsumerOutcomeKey.String(consume.Outcome(o).String()), ConsumerRedeliveredKey.Bool(r == 1)))}
		}
	}
	var err error
	if c.messages, err = m.Int64Counter("idgen.consumer.messages", metric.WithUnit("{message}"),
		metric.WithDescription("Messages delivered to idgen consumers, by outcome and whether the broker redelivered them.")); err != nil {
		return nil, instrumentError("idgen.consumer.messages", err)
	}
	return c, nil
}

// Delivered implements consume.Observer.
func (c *Consumer) Delivered(o consume.Outcome, redelivered bool) {
	i, r := 0, 0
	if int(o) < len(c.byOut) {
		i = int(o)
	}
	if redelivered {
		r = 1
	}
	c.messages.Add(context.Background(), 1, c.byOut[i][r]...)
}
