package snowflake

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/idgen/idgen/runtime/snowflake/snowflaketest"
)

func TestLogObserver(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	clk := snowflaketest.NewClock(t0)
	clk.AutoAdvance(true)
	g, err := New(Classic(), 1, Options{
		Clock:    clk,
		Rollback: RollbackLogical,
		MaxDrift: 50 * time.Millisecond,
		After:    t0.Add(20 * time.Millisecond), // inherited: the clock is 20ms behind
		Observer: LogObserver(logger),
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Next(); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"level=WARN msg=\"snowflake: clock behind the last issued time\" behind=20ms",
		"level=INFO msg=\"snowflake: issuing ahead of the clock\" drift=21ms",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
	// A tick used up under ExhaustWait: one debug line for the wait.
	buf.Reset()
	g, _ = New(Classic(), 1, Options{Clock: clk, Observer: LogObserver(logger)})
	if _, err := g.NextN(t.Context(), 4097); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "level=DEBUG msg=\"snowflake: waited for the clock\" wait=1ms") {
		t.Errorf("log:\n%s", buf.String())
	}
}
