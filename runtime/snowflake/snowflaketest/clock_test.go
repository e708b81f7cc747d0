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

// TestMonotonic: the view moves with Advance only; a wall-clock step or run-on (Set)
// leaves it where it was, as Go's monotonic clock stands still on a suspended machine.
func TestMonotonic(t *testing.T) {
	c := NewClock(start)
	c.Advance(time.Second)
	m := c.Monotonic()
	if !m.Now().Equal(start.Add(time.Second)) {
		t.Fatalf("view made at %v reads %v", start.Add(time.Second), m.Now())
	}
	c.Set(start.Add(time.Hour)) // suspended for an hour: the wall clock ran on
	if !m.Now().Equal(start.Add(time.Second)) {
		t.Errorf("after Set the view reads %v, want it unmoved at %v", m.Now(), start.Add(time.Second))
	}
	c.Advance(5 * time.Millisecond)
	if got, want := m.Now(), start.Add(time.Second+5*time.Millisecond); !got.Equal(want) {
		t.Errorf("after Advance the view reads %v, want %v", got, want)
	}
	if got, want := c.Now(), start.Add(time.Hour+5*time.Millisecond); !got.Equal(want) {
		t.Errorf("the wall clock reads %v, want %v", got, want)
	}
	done := make(chan error, 1)
	go func() { done <- m.Sleep(context.Background(), time.Millisecond) }()
	if err := c.WaitSleepers(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	c.Advance(time.Millisecond)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
