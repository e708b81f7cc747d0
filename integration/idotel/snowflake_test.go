package idotel_test

import (
	"context"
	"math"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/idgen/idgen/plugins/idotel"
	"github.com/idgen/idgen/runtime/snowflake"
	"github.com/idgen/idgen/runtime/snowflake/snowflaketest"
)

// TestSnowflake issues known numbers of IDs on a fake clock, borrows a tick, steps the
// clock back once and lets the generator wait it out: the instruments say exactly that.
func TestSnowflake(t *testing.T) {
	m := newMeter(t)
	m.opts.Attributes = []attribute.KeyValue{attribute.String("generator", "orders")}
	obs, err := idotel.NewSnowflake(m.opts)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	clock := snowflaketest.NewClock(t0)
	clock.AutoAdvance(true) // a wait advances the clock by itself
	g, err := snowflake.New(snowflake.Classic(), 1, snowflake.Options{
		Clock: clock, Rollback: snowflake.RollbackWait, Exhaust: snowflake.ExhaustBorrow, Observer: obs})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const n = 1000
	for range n {
		if _, err := g.Next(); err != nil {
			t.Fatal(err)
		}
	}
	c := m.collect(t)
	if got := c.sum(t, "idgen.ids.issued", attribute.String("generator", "orders")); got != n {
		t.Errorf("after %d Next: idgen.ids.issued = %d", n, got)
	}

	// 1000 + 5000 IDs are more than a 1 ms tick's 4096: the block borrows the next tick.
	if _, err := g.NextN(ctx, 5000); err != nil {
		t.Fatal(err)
	}
	c = m.collect(t)
	if got := c.sum(t, "idgen.ids.issued"); got != n+5000 {
		t.Errorf("after NextN(5000): idgen.ids.issued = %d, want %d", got, n+5000)
	}
	if d := c.gauge(t, "idgen.clock.drift"); d <= 0 || d > 0.001 {
		t.Errorf("with a borrowed tick: idgen.clock.drift = %v s, want in (0, 1 ms]", d)
	}

	// The clock steps back 5 ms: one rollback, seen once, waited out (the fake clock
	// advances through the wait).
	clock.Set(t0.Add(-5 * time.Millisecond))
	if _, err := g.Next(); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Second) // the clock passes the borrowed tick: no drift left
	if _, err := g.Next(); err != nil {
		t.Fatal(err)
	}
	c = m.collect(t)
	c.unit(t, "idgen.ids.issued", "{id}")
	if got := c.sum(t, "idgen.ids.issued"); got != n+5000+2 {
		t.Errorf("idgen.ids.issued = %d, want %d", got, n+5000+2)
	}
	c.unit(t, "idgen.clock.rollbacks", "{rollback}")
	if got := c.sum(t, "idgen.clock.rollbacks", attribute.String("generator", "orders")); got != 1 {
		t.Errorf("idgen.clock.rollbacks = %d, want 1", got)
	}
	c.unit(t, "idgen.clock.rollback.size", "s")
	if cnt, sum := c.hist(t, "idgen.clock.rollback.size"); cnt != 1 || math.Abs(sum-0.005) > 1e-9 {
		t.Errorf("idgen.clock.rollback.size: %d rollbacks summing %v s, want 1 of 5 ms", cnt, sum)
	}
	c.unit(t, "idgen.clock.wait.duration", "s")
	if cnt, sum := c.hist(t, "idgen.clock.wait.duration"); cnt != 1 || math.Abs(sum-0.005) > 1e-9 {
		t.Errorf("idgen.clock.wait.duration: %d waits summing %v s, want 1 of 5 ms", cnt, sum)
	}
	c.unit(t, "idgen.clock.drift", "s")
	if d := c.gauge(t, "idgen.clock.drift"); d != 0 {
		t.Errorf("after the clock caught up: idgen.clock.drift = %v s, want 0", d)
	}

	if err := obs.Close(); err != nil {
		t.Fatal(err)
	}
	if _, ok := m.collect(t)["idgen.ids.issued"]; ok {
		t.Error("idgen.ids.issued still reported after Close")
	}
}
