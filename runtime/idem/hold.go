package idem

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// ErrClaimLost is the cause of the context a handler or an Once function runs with when
// its claim on the key could not be kept: a renewal found the claim taken (it lapsed and
// another caller claimed the key), or renewals failed until the claim could lapse. The
// work must stop: another execution may start once the claim lapses. Nothing is stored.
var ErrClaimLost = errors.New("idem: the claim on the key was lost while the work ran")

// hold keeps a claim alive while the work under it runs: it renews the claim every lock/3
// (retrying a failed renewal every lock/12), and cancels the work's context, with a cause
// matching ErrClaimLost, when a renewal finds the claim taken or when the claim could
// lapse before a renewal succeeds (lockMargin before the end of the lock, measured from
// the start of the last claim or renewal that succeeded). Work shorter than lock/3 costs no
// store call and no goroutine: the renewal is a timer that has not fired.
//
// Why this keeps executions apart: a store extends a claim only for the token that holds
// it, and another caller can take the key only after the claim's end, which is at least
// lock after the start of the last successful renewal. The work is cancelled lockMargin
// before that moment, so a handler that honours its context has stopped when the key can
// pass on. A handler that ignores its context can outlive its claim; nothing outside the
// handler can stop it.
type hold struct {
	store      Store
	key, token string
	lock       time.Duration
	ctx        context.Context
	cancel     context.CancelCauseFunc

	mu       sync.Mutex
	timer    *time.Timer
	deadline time.Time // when the claim may lapse: start of the last success + lock
	stopped  bool
	lost     error
}

// lockMargin is how long before its claim could lapse a hold gives up and cancels the work.
func lockMargin(lock time.Duration) time.Duration { return lock / 10 }

// startHold returns a hold on the claim token took on key at claimed, with the work's
// context derived from parent.
func startHold(parent context.Context, store Store, key, token string, lock time.Duration, claimed time.Time) *hold {
	h := &hold{store: store, key: key, token: token, lock: lock, deadline: claimed.Add(lock)}
	h.ctx, h.cancel = context.WithCancelCause(parent)
	h.timer = time.AfterFunc(lock/3, h.renew)
	return h
}

// renew runs on the timer: one renewal, then the next timer, or the work cancelled.
func (h *hold) renew() {
	h.mu.Lock()
	if h.stopped {
		h.mu.Unlock()
		return
	}
	giveUp := h.deadline.Add(-lockMargin(h.lock))
	h.mu.Unlock()

	start := time.Now()
	// The renewal must answer before the claim could lapse, or it is too late to matter.
	ctx, cancel := context.WithDeadline(context.Background(), giveUp)
	err := h.store.Renew(ctx, h.key, h.token, h.lock)
	cancel()

	h.mu.Lock()
	defer h.mu.Unlock()
	if h.stopped {
		return
	}
	switch {
	case err == nil:
		h.deadline = start.Add(h.lock)
		h.timer.Reset(h.lock / 3)
	case errors.Is(err, ErrNotHolder):
		h.lose(fmt.Errorf("%w: another caller holds it", ErrClaimLost))
	default:
		left := time.Until(giveUp)
		if left <= 0 {
			h.lose(fmt.Errorf("%w: renewals failed until it could lapse: %w", ErrClaimLost, err))
			return
		}
		h.timer.Reset(min(h.lock/12, left))
	}
}

// lose cancels the work with cause err; h.mu is held.
func (h *hold) lose(err error) {
	h.lost = err
	h.cancel(err)
}

// stop ends the renewals and the work's context (the work is over, as net/http ends a
// request's context when its handler returns), and returns the error the claim was lost
// with, or nil if no renewal found it lost. A claim that lapsed without a renewal noticing
// (the machine was suspended) is caught by the store: Complete and Release answer
// ErrNotHolder.
func (h *hold) stop() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.stopped = true
	h.timer.Stop()
	h.cancel(context.Canceled)
	return h.lost
}
