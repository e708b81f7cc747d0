package idem

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrInProgress is returned by Once when another consumer holds the key right now.
var ErrInProgress = errors.New("idem: the key is being processed by another consumer")

// OnceOptions tune Once; the zero value holds a claim for DefaultLockTimeout (renewed
// while the function runs) and remembers a done key for DefaultTTL.
type OnceOptions struct {
	// LockTimeout is how long a claim whose consumer stopped renewing it holds the key
	// before another consumer may take it; DefaultLockTimeout if zero. The claim is
	// renewed every LockTimeout/3 while the function runs.
	LockTimeout time.Duration
	// TTL is how long a done key is remembered; DefaultTTL if zero. Redeliveries later
	// than that run again.
	TTL time.Duration
}

// Once runs fn at most once per key, for queue consumers that see redeliveries: a key seen
// done returns nil without running fn; a key another consumer holds returns ErrInProgress
// (redeliver later); an error or a panic from fn gives the key back so a redelivery runs
// it again. While fn runs its claim is renewed; if the claim is lost, fn's context is
// cancelled with a cause matching ErrClaimLost, the key is not marked done, and Once
// returns an error matching ErrClaimLost (another consumer may be running the key: do not
// acknowledge the message as processed by this one).
func Once(ctx context.Context, store Store, key string, fn func(context.Context) error, opts OnceOptions) (err error) {
	if opts.LockTimeout <= 0 {
		opts.LockTimeout = DefaultLockTimeout
	}
	if opts.TTL <= 0 {
		opts.TTL = DefaultTTL
	}
	claimed := time.Now()
	token, held, err := store.Claim(ctx, key, "", opts.LockTimeout)
	if err != nil {
		return fmt.Errorf("idem: claiming %q: %w", key, err)
	}
	if token == "" {
		if held.State == Completed {
			return nil
		}
		return ErrInProgress
	}
	w := &work{key: Key{Value: key, Scoped: key}}
	w.start(ctx, store, token, opts.LockTimeout, claimed)
	bg := &w.bg
	defer func() {
		if p := recover(); p != nil {
			w.stop()
			store.Release(bg, key, token)
			panic(p)
		}
	}()
	ferr := fn(w)
	if lost := w.stop(); lost != nil {
		return errors.Join(ferr, fmt.Errorf("idem: %q: %w", key, lost))
	}
	if ferr != nil {
		if rerr := store.Release(bg, key, token); rerr != nil {
			return errors.Join(ferr, fmt.Errorf("idem: releasing %q: %w", key, rerr))
		}
		return ferr
	}
	if err := store.Complete(bg, key, token, Response{}, opts.TTL); err != nil {
		if errors.Is(err, ErrNotHolder) {
			return fmt.Errorf("idem: %q ran, but %w: its lock timed out before it was marked done", key, ErrClaimLost)
		}
		return fmt.Errorf("idem: %q ran, but marking it done failed: %w", key, err)
	}
	return nil
}
