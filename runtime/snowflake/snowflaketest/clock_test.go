package snowflaketest

import (
	"context"
	"errors"
	"testing"
	"time"
)

var start = time.Date(2026, 4, 8, 12, 0, 0, 0, time.UTC)

func TestSleepWakesOnAdvanceNotSet(t *testing.T) {
	c := NewClock(start)
	woke := make(chan error, 1)
	go func() { woke <- c.Sleep(context.Background(), 10*time.Millisecond) }()
	if err := c.WaitSleepers(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	c.Set(start.Add(time.Hour)) // a wall-clock step wakes nobody
	c.Advance(9 * time.Millisecond)
	select {
	case <-woke:
		t.Fatal("woke before its duration of elapsed time")
	case <-time.After(20 * time.Millisecond):
	}
	c.Advance(time.Millisecond)
	if err := <-woke; err != nil {
		t.Fatal(err)
	}
	if got, want := c.Now(), start.Add(time.Hour+10*time.Millisecond); !got.Equal(want) {
		t.Errorf("now %v, want %v", got, want)
	}
	if c.Sleepers() != 0 {
		t.Errorf("%d sleepers left", c.Sleepers())
	}
}

func TestSleepContext(t *testing.T) {
	c := NewClock(start)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Sleep(ctx, time.Second) }()
	if err := c.WaitSleepers(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v", err)
	}
	if err := c.WaitSleepers(t.Context(), 0); err != nil {
		t.Fatal(err)
	}
}

func TestAutoAdvance(t *testing.T) {
	c := NewClock(start)
	c.AutoAdvance(true)
	if err := c.Sleep(context.Background(), 3*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if !c.Now().Equal(start.Add(3 * time.Millisecond)) {
		t.Errorf("now %v", c.Now())
	}
	if got := c.Slept(); len(got) != 1 || got[0] != 3*time.Millisecond {
		t.Errorf("slept %v", got)
	}
}
