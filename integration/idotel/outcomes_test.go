package idotel_test

import (
	"testing"

	"github.com/idgen/idgen/plugins/idotel"
	"github.com/idgen/idgen/runtime/consume"
)

// TestConsumerOutcomes: every outcome a consumer reports is counted under its own label,
// including consume.Paused (a try the store's outage failed, which spends no attempt);
// TestConsumer in the integration module runs a real consumer.
func TestConsumerOutcomes(t *testing.T) {
	m := newMeter(t)
	c, err := idotel.NewConsumer(m.opts)
	if err != nil {
		t.Fatal(err)
	}
	outcomes := []consume.Outcome{consume.Processed, consume.Duplicate, consume.Failed, consume.DeadLettered, consume.NoKey, consume.Paused}
	for i, o := range outcomes {
		for range i + 1 {
			c.Delivered(o, false)
		}
	}
	got := m.collect(t)
	for i, o := range outcomes {
		if n := got.sum(t, "idgen.consumer.messages", idotel.ConsumerOutcomeKey.String(o.String()), idotel.ConsumerRedeliveredKey.Bool(false)); n != int64(i+1) {
			t.Errorf("outcome %s: counted %d, want %d", o, n, i+1)
		}
	}
}
