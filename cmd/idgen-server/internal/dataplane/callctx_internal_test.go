package dataplane

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

type ctxKey struct{}

// ended fails t unless ctx is done with want: Err and context.Cause are want, and Done
// is closed.
func ended(t *testing.T, ctx context.Context, want error) {
	t.Helper()
	if err := ctx.Err(); !errors.Is(err, want) {
		t.Fatalf("Err = %v, want %v", err, want)
	}
	select {
	case <-ctx.Done():
	default:
		t.Fatalf("Err is %v but Done is open", want)
	}
	if err := context.Cause(ctx); !errors.Is(err, want) {
		t.Fatalf("Cause = %v, want %v", err, want)
	}
}

// A call that never waits ends without a timer: the context reads as canceled after
// stop, and making and stopping it allocates only itself and its stop.
func TestCallContextUnstarted(t *testing.T) {
	parent := context.WithValue(context.Background(), ctxKey{}, "v")
	ctx, stop := callContext(parent)
	if err := ctx.Err(); err != nil {
		t.Fatalf("Err before stop = %v", err)
	}
	if d, ok := ctx.Deadline(); !ok || time.Until(d) <= CallTimeout/2 {
		t.Fatalf("Deadline = %v, %v; want about %v from now", d, ok, CallTimeout)
	}
	if v := ctx.Value(ctxKey{}); v != "v" {
		t.Fatalf("Value = %v", v)
	}
	stop()
	if ctx.(*callCtx).timed.Load() != stopped {
		t.Fatal("stop on an unstarted context started a timer")
	}
	ended(t, ctx, context.Canceled)
	if v := ctx.Value(ctxKey{}); v != "v" {
		t.Fatalf("Value after stop = %v", v)
	}
	allocs := testing.AllocsPerRun(100, func() {
		_, stop := callContext(parent)
		stop()
	})
	if allocs > 2 {
		t.Fatalf("callContext and stop: %v allocations, want 2 (itself and its stop; context.WithTimeout makes 4)", allocs)
	}
}

// A waiter sees the deadline: Done closes, Err and Cause are DeadlineExceeded.
func TestCallContextDeadline(t *testing.T) {
	ctx, stop := withLazyTimeout(context.Background(), 20*time.Millisecond)
	defer stop()
	<-ctx.Done()
	ended(t, ctx, context.DeadlineExceeded)
}

// Past the deadline, Err says so before anyone asked for Done, and Done agrees.
func TestCallContextErrPastDeadline(t *testing.T) {
	ctx, stop := withLazyTimeout(context.Background(), time.Nanosecond)
	defer stop()
	for ctx.Err() == nil { // the clock passes one nanosecond
	}
	ended(t, ctx, context.DeadlineExceeded)
}

// The parent's cancellation reaches the call, before and after its timer started, and
// the call's end reaches a context made from it.
func TestCallContextPropagation(t *testing.T) {
	parent, cancel := context.WithCancel(context.Background())
	ctx, stop := callContext(parent)
	defer stop()
	cancel()
	ended(t, ctx, context.Canceled) // Err first, before anything started the timer

	parent, cancel = context.WithCancel(context.Background())
	defer cancel()
	ctx, stop = callContext(parent)
	child, childCancel := context.WithCancel(ctx) // starts the timer: a waiter
	defer childCancel()
	if ctx.(*callCtx).timed.Load() == stopped || ctx.(*callCtx).timed.Load() == nil {
		t.Fatal("a context made from the call did not start its timer")
	}
	stop()
	<-child.Done()
	ended(t, child, context.Canceled)

	// The parent's deadline, when earlier, is the call's.
	early, cancelEarly := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancelEarly()
	ctx, stop = callContext(early)
	defer stop()
	want, _ := early.Deadline()
	if d, _ := ctx.Deadline(); !d.Equal(want) {
		t.Fatalf("Deadline = %v, want the parent's %v", d, want)
	}
	<-ctx.Done()
}

// Done, Err and stop from many goroutines at once (run with -race): every waiter sees
// Done closed after stop.
func TestCallContextConcurrent(t *testing.T) {
	for range 200 {
		ctx, stop := callContext(context.Background())
		var wg sync.WaitGroup
		for i := range 4 {
			wg.Go(func() {
				if i%2 == 0 {
					<-ctx.Done()
				} else {
					for ctx.Err() == nil {
						time.Sleep(10 * time.Microsecond)
					}
				}
			})
		}
		stop()
		wg.Wait()
		if !errors.Is(ctx.Err(), context.Canceled) {
			t.Fatalf("Err = %v", ctx.Err())
		}
	}
}

// Err keeps its first answer: a parent's deadline seen before the timer started stays
// DeadlineExceeded after stop, and a stopped context's Cause stays Canceled when the
// parent is canceled later with a cause of its own.
func TestCallContextErrKept(t *testing.T) {
	parent, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	ctx, stop := callContext(parent)
	<-parent.Done()
	if err := ctx.Err(); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Err = %v, want the parent's DeadlineExceeded", err)
	}
	stop()
	ended(t, ctx, context.DeadlineExceeded) // kept after stop

	parent2, cancel2 := context.WithCancelCause(context.WithValue(context.Background(), ctxKey{}, "v"))
	ctx, stop = callContext(parent2)
	stop()
	boom := errors.New("boom")
	cancel2(boom)
	ended(t, ctx, context.Canceled) // not the parent's later cause
	if v := ctx.Value(ctxKey{}); v != "v" {
		t.Fatalf("Value after stop = %v", v)
	}
}

// BenchmarkCallContext: the lazy deadline of a call that does not wait, against
// context.WithTimeout, under a request's cancelable context.
func BenchmarkCallContext(b *testing.B) {
	parent, cancel := context.WithCancel(context.Background())
	defer cancel()
	b.Run("lazy", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, stop := callContext(parent)
			stop()
		}
	})
	b.Run("WithTimeout", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, stop := context.WithTimeout(parent, CallTimeout)
			stop()
		}
	})
}
