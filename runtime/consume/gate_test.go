package consume

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// errDown is what a store that is down answers: ledger.Unavailable recognises it.
var errDown = fmt.Errorf("ledger: beginning a transaction: %w", driver.ErrBadConn)

func TestUnavailable(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{nil, false},
		{errors.New("boom"), false},
		{fmt.Errorf("billing: %w: %w", ErrUnavailable, errors.New("503")), true},
		{errDown, true},
		{fmt.Errorf("x: %w", context.DeadlineExceeded), true},
		{context.Canceled, false},
	} {
		if got := Unavailable(tc.err); got != tc.want {
			t.Errorf("Unavailable(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

// waitUntil polls cond every millisecond until it holds, failing the test after a minute.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestGateOutage: while the store is down every try fails as unavailable; the gate
// pauses, one message probes at a time, and no message's Run returns (no attempt is
// spent); when the store is back the probe succeeds and every waiting message runs.
func TestGateOutage(t *testing.T) {
	g := &Gate{MinPause: time.Millisecond, MaxPause: 4 * time.Millisecond}
	var up atomic.Bool
	var running, most, tries, heard atomic.Int64
	try := func() error {
		n := running.Add(1)
		defer running.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		tries.Add(1)
		if !up.Load() {
			return errDown
		}
		return nil
	}
	const messages = 8
	var wg sync.WaitGroup
	var returned atomic.Int64
	for range messages {
		wg.Go(func() {
			done, err := g.Run(context.Background(), try, func(err error) {
				if !errors.Is(err, driver.ErrBadConn) {
					t.Errorf("unavailable heard %v", err)
				}
				heard.Add(1)
			})
			if !done || err != nil {
				t.Errorf("Run = %v, %v after the store came back; want done, nil", done, err)
			}
			returned.Add(1)
		})
	}
	waitUntil(t, "30 failed tries", func() bool { return tries.Load() >= 30 })
	if !g.Paused() {
		t.Error("the gate is not paused while the store is down")
	}
	most.Store(0)
	from := tries.Load()
	waitUntil(t, "20 more tries", func() bool { return tries.Load() >= from+20 })
	if m := most.Load(); m != 1 {
		t.Errorf("%d tries ran at once during the pause, want 1 (the probe)", m)
	}
	if n := returned.Load(); n != 0 {
		t.Fatalf("%d messages returned from Run while the store was down", n)
	}
	up.Store(true)
	wg.Wait()
	if g.Paused() {
		t.Error("the gate is still paused after the store answered")
	}
	if failed := tries.Load() - messages; heard.Load() != failed {
		t.Errorf("unavailable heard %d failures, the tries failed %d times", heard.Load(), failed)
	}
}

// TestGateProvenUp: a message whose tries fail as if the store were down while the store
// answers other messages' tries fails on its own: its Run returns the error once ProvenUp
// others were answered between two of its failures, and the gate does not stay paused.
func TestGateProvenUp(t *testing.T) {
	g := &Gate{MinPause: time.Millisecond, MaxPause: 2 * time.Millisecond}
	stop := make(chan struct{})
	var others sync.WaitGroup
	var answered atomic.Int64
	for range 4 {
		others.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if done, err := g.Run(context.Background(), func() error { return nil }, func(error) {}); !done || err != nil {
					t.Errorf("a good message: %v %v", done, err)
				}
				answered.Add(1)
			}
		})
	}
	var tries int
	done, err := g.Run(context.Background(), func() error { tries++; return errDown }, func(error) {})
	close(stop)
	others.Wait()
	if !done || !errors.Is(err, driver.ErrBadConn) || tries < 2 {
		t.Errorf("the poison message's Run = %v, %v after %d tries; want done and its error, after 2 tries at least", done, err, tries)
	}
	if answered.Load() < ProvenUp {
		t.Errorf("only %d other tries answered", answered.Load())
	}
}

// TestGateStop: a message waiting for the store when its context ends is not done, and
// its Run returns the last unavailable error.
func TestGateStop(t *testing.T) {
	g := &Gate{MinPause: time.Hour, MaxPause: time.Hour}
	ctx, cancel := context.WithCancel(context.Background())
	var tries atomic.Int64
	result := make(chan error, 1)
	go func() {
		done, err := g.Run(ctx, func() error { tries.Add(1); return errDown }, func(error) {})
		if done {
			err = errors.New("done")
		}
		result <- err
	}()
	waitUntil(t, "the first try", func() bool { return g.Paused() })
	cancel()
	if err := <-result; !errors.Is(err, driver.ErrBadConn) || tries.Load() != 1 {
		t.Errorf("Run after its context ended: %v after %d tries; want not done, the store's error, 1 try", err, tries.Load())
	}
}

func TestGatePause(t *testing.T) {
	g := &Gate{}
	for _, tc := range []struct {
		n      int
		lo, hi time.Duration
	}{
		{1, DefaultMinPause * 3 / 4, DefaultMinPause},
		{2, DefaultMinPause * 3 / 2, 2 * DefaultMinPause},
		{30, DefaultMaxPause * 3 / 4, DefaultMaxPause},
	} {
		for range 100 {
			if d := g.pause(tc.n); d < tc.lo || d > tc.hi {
				t.Fatalf("pause(%d) = %v, want within [%v, %v]", tc.n, d, tc.lo, tc.hi)
			}
		}
	}
}
