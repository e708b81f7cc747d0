package idem

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrInProgress is returned by Once when another consumer holds the key right now.
var ErrInProgress = errors.New("idem: the key is being processed by another consumer")

// OnceOptions tune Once; the zero value holds a claim for a minute and remembers a done
// key for a day.
type OnceOptions struct {
	LockTimeout time.Duration
	TTL         time.Duration
}

// Once runs fn at most once per key, for queue consumers that see redeliveries: a key seen
// done returns nil without running fn; a key another consumer holds returns ErrInProgress
// (redeliver later); an error or a panic from fn gives the key back so a redelivery runs
// it again.
func Once(ctx context.Context, store Store, key string, fn func(context.Context) error, opts ...OnceOptions) (err error) {
	var o OnceOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	if o.LockTimeout <= 0 {
		o.LockTimeout = time.Minute
	}
	if o.TTL <= 0 {
		o.TTL = 24 * time.Hour
	}
	token, held, err := store.Claim(ctx, key, "", o.LockTimeout)
	if err != nil {
		return fmt.Errorf("idem: claiming %q: %w", key, err)
	}
	if token == "" {
		if held.State == Completed {
			return nil
		}
		return ErrInProgress
	}
	bg := context.WithoutCancel(ctx)
	defer func() {
		if p := recover(); p != nil {
			store.Release(bg, key, token)
			panic(p)
		}
	}()
	if err := fn(ctx); err != nil {
		if rerr := store.Release(bg, key, token); rerr != nil {
			return errors.Join(err, fmt.Errorf("idem: releasing %q: %w", key, rerr))
		}
		return err
	}
	if err := store.Complete(bg, key, token, Response{}, o.TTL); err != nil {
		return fmt.Errorf("idem: %q ran, but marking it done failed: %w", key, err)
	}
	return nil
}
