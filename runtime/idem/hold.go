package idem

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// ErrClaimLost is the cause of the context a handler or an Once function runs with when
// its claim on the key could not be kept: a renewal found the claim taken (it lapsed and
// another caller claimed the key), or renewals failed until the claim could lapse. The
// work must stop: another execution may start once the claim lapses. When the claim was
// taken nothing is stored. When renewals only failed, work that finishes all the same has
// its outcome recorded with the claim's token, which the store accepts only if nobody took
// the key meanwhile; if it does not, nothing is stored.
var ErrClaimLost = errors.New("idem: the claim on the key was lost while the work ran")

// work is one request with a key, or one Once call, in one allocation: the request body
// the handler reads and the recorder of its response (requests and responses up to 512
// bytes need no other), the context the work runs with (cancellable, carrying its Key),
// the renewal state of its claim, and a context for the store calls that outlives a client
// who went away. Nothing in it is reused by another request, so a handler that keeps its
// context, body or writer after returning sees only its own.
//
// The claim is renewed every lock/3 (a failed renewal retried every lock/12) and the work
// cancelled, with a cause matching ErrClaimLost, when a renewal finds the claim taken, or
// when the claim could lapse before a renewal succeeds (lockMargin before the end of the
// lock, measured from the start of the last claim or renewal that succeeded), whether or
// not the renewal in flight has answered by then. Work shorter
// than lock/3 costs no store call: its renewal never comes due.
//
// Why this keeps executions apart: a store extends a claim only for the token that holds
// it, and another caller can take the key only after the claim's end, which is at least
// lock after the start of the last successful renewal. The work is cancelled lockMargin
// before that moment, so a handler that honours its context has stopped when the key can
// pass on. A handler that ignores its context can outlive its claim; nothing outside the
// handler can stop it.
//
// Why the outcome of work whose renewals failed may still be recorded: Complete and
// Release act only for the token that holds the claim, and a caller that takes the key
// replaces the token. A Complete that succeeds after failed renewals therefore proves that
// nobody took the key since this claim, so no other execution ran; one that fails stores
// nothing. Only a renewal that found the claim taken (taken) skips that attempt: the token
// cannot hold the key again.
type work struct {
	context.Context // cancelled by cancel
	cancel          context.CancelCauseFunc
	key             Key
	bg              detached
	rec             recorder
	in              bodyReader

	store Store
	token string
	lock  time.Duration

	mu       sync.Mutex
	deadline time.Time // when the claim may lapse: start of the last success + lock
	due      time.Time // when the next renewal starts
	index    int       // in renewals.q, or -1
	stopped  bool
	lost     error
	taken    bool // lost because a renewal found another caller's claim
}

// Value implements context.Context: the Key for KeyFrom, the rest from the parent.
func (w *work) Value(k any) any {
	if k == (keyContext{}) {
		return &w.key
	}
	return w.Context.Value(k)
}

// detached is a context with its parent's values and none of its cancellation, for the
// store calls that must happen after a client went away.
type detached struct{ parent context.Context }

func (d *detached) Deadline() (time.Time, bool) { return time.Time{}, false }
func (d *detached) Done() <-chan struct{}       { return nil }
func (d *detached) Err() error                  { return nil }
func (d *detached) Value(k any) any             { return d.parent.Value(k) }

// lockMargin is how long before its claim could lapse a hold gives up and cancels the work.
func lockMargin(lock time.Duration) time.Duration { return lock / 10 }

// start begins the work under the claim token took on w.key at claimed, with its context
// derived from parent, and schedules its renewals.
func (w *work) start(parent context.Context, store Store, token string, lock time.Duration, claimed time.Time) {
	w.store, w.token, w.lock, w.deadline, w.index = store, token, lock, claimed.Add(lock), -1
	w.Context, w.cancel = context.WithCancelCause(parent)
	w.bg.parent = parent
	w.due = claimed.Add(renewEvery(lock))
	renewals.add(w)
}

// renewEvery is the time between renewals of a claim held for lock, retryEvery between
// attempts after a failed one: at least a millisecond, so a tiny lock cannot spin.
func renewEvery(lock time.Duration) time.Duration { return max(lock/3, time.Millisecond) }
func retryEvery(lock time.Duration) time.Duration { return max(lock/12, time.Millisecond) }

// renew runs when the renewal is due, in a goroutine of its own: one renewal, then the next
// scheduled, or the work cancelled.
func (w *work) renew() {
	w.mu.Lock()
	if w.stopped {
		w.mu.Unlock()
		return
	}
	giveUp := w.deadline.Add(-lockMargin(w.lock))
	w.mu.Unlock()

	start := time.Now()
	// The renewal must answer before the claim could lapse, or it is too late to matter;
	// and the work is cancelled at that moment whether the store has answered or not (a
	// store may not honour its context: go-redis without ContextTimeoutEnabled does not).
	ctx, cancel := context.WithDeadline(&w.bg, giveUp)
	stop := context.AfterFunc(ctx, func() {
		if ctx.Err() != context.DeadlineExceeded {
			return
		}
		w.mu.Lock()
		defer w.mu.Unlock()
		if !w.stopped && w.lost == nil {
			w.lose(fmt.Errorf("%w: a renewal did not answer before it could lapse", ErrClaimLost))
		}
	})
	err := w.store.Renew(ctx, w.key.Scoped, w.token, w.lock)
	stop()
	cancel()

	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped || w.lost != nil {
		return
	}
	switch {
	case err == nil:
		w.deadline = start.Add(w.lock)
		w.due = start.Add(renewEvery(w.lock))
	case errors.Is(err, ErrNotHolder):
		w.taken = true
		w.lose(fmt.Errorf("%w: another caller holds it", ErrClaimLost))
		return
	default:
		left := time.Until(giveUp)
		if left <= 0 {
			w.lose(fmt.Errorf("%w: renewals failed until it could lapse: %w", ErrClaimLost, err))
			return
		}
		w.due = time.Now().Add(min(retryEvery(w.lock), left))
	}
	renewals.add(w)
}

// lose cancels the work with cause err; w.mu is held.
func (w *work) lose(err error) {
	w.lost = err
	w.cancel(err)
}

// stop ends the renewals and the work's context (the work is over, as net/http ends a
// request's context when its handler returns), and returns the error the claim was lost
// with, or nil if no renewal found it lost, and whether a renewal found it taken by
// another caller. A claim that lapsed without a renewal noticing (the machine was
// suspended) is caught by the store: Complete and Release answer ErrNotHolder.
func (w *work) stop() (lost error, taken bool) {
	w.mu.Lock()
	w.stopped = true
	w.cancel(context.Canceled)
	lost, taken = w.lost, w.taken
	w.mu.Unlock()
	// Once stopped, a renewal in flight does not schedule another, so this removes the
	// last entry.
	renewals.remove(w)
	return lost, taken
}

// renewals schedules the renewals of every claim held in the process: one goroutine
// sleeps until the earliest is due and starts it, so a claim costs a heap entry, not a
// timer and a goroutine. It runs while claims are held, and stops after idleFor without
// any.
var renewals renewer

const idleFor = 10 * time.Second

type renewer struct {
	mu      sync.Mutex
	q       workQueue
	wake    chan struct{}
	running bool
}

func (r *renewer) add(w *work) {
	r.mu.Lock()
	defer r.mu.Unlock()
	heap.Push(&r.q, w)
	if !r.running {
		r.running = true
		if r.wake == nil {
			r.wake = make(chan struct{}, 1)
		}
		go r.loop()
	} else if w.index == 0 {
		select {
		case r.wake <- struct{}{}:
		default:
		}
	}
}

func (r *renewer) remove(w *work) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if w.index >= 0 {
		heap.Remove(&r.q, w.index)
	}
}

func (r *renewer) loop() {
	t := time.NewTimer(idleFor)
	defer t.Stop()
	idleSince := time.Now()
	for {
		r.mu.Lock()
		now := time.Now()
		for len(r.q) > 0 && !r.q[0].due.After(now) {
			go heap.Pop(&r.q).(*work).renew()
		}
		next := idleFor
		if len(r.q) > 0 {
			next = r.q[0].due.Sub(now)
			idleSince = now
		} else if now.Sub(idleSince) >= idleFor {
			r.running = false
			r.mu.Unlock()
			return
		}
		r.mu.Unlock()
		t.Reset(next)
		select {
		case <-t.C:
		case <-r.wake:
		}
	}
}

// workQueue is a heap of works by due time; each knows its index.
type workQueue []*work

func (q workQueue) Len() int           { return len(q) }
func (q workQueue) Less(i, j int) bool { return q[i].due.Before(q[j].due) }
func (q workQueue) Swap(i, j int) {
	q[i], q[j] = q[j], q[i]
	q[i].index, q[j].index = i, j
}
func (q *workQueue) Push(x any) {
	w := x.(*work)
	w.index = len(*q)
	*q = append(*q, w)
}
func (q *workQueue) Pop() any {
	old := *q
	w := old[len(old)-1]
	old[len(old)-1] = nil
	w.index = -1
	*q = old[:len(old)-1]
	return w
}
