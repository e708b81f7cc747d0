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

// oncePrefix starts every key Once claims in a Store. The middleware's keys start with a
// decimal digit (the length of their scope, see ledger.ScopedKey), so the two sets are disjoint
// whatever text callers pass: that is what keeps a message ID from naming a request's
// record in a Store both use, and the reverse.
const oncePrefix = "once:"

// OnceKey returns the key Once claims in a Store for the message key: key after the
// prefix "once:", which no key of the middleware starts with (those start with the length
// of the caller's scope), so one Store can serve Middleware and Once and a message ID
// never names a request's record, nor a request's key a message's. Read what a Store
// holds for a message with store.Get(ctx, idem.OnceKey(key)). The prefix counts towards
// a store's key limit (MaxSQLKeyLen).
func OnceKey(key string) string { return oncePrefix + key }

// Once runs fn at most once per key, for queue consumers that see redeliveries: a key seen
// done returns nil without running fn; a key another consumer holds returns ErrInProgress
// (redeliver later); an error or a panic from fn gives the key back so a redelivery runs
// it again. While fn runs its claim is renewed; if the claim is lost, fn's context is
// cancelled with a cause matching ErrClaimLost. If the claim was taken by another
// consumer, or renewals failed and the key can no longer be marked done (or given back)
// with this claim's token, Once returns an error matching ErrClaimLost (another consumer
// may be running the key: do not acknowledge the message as processed by this one). If
// renewals only failed and fn returned nil, the key is marked done with the token, which
// succeeds only if nobody took it meanwhile, and then Once returns nil. The store holds
// the key as OnceKey(key), apart from every key of the middleware; KeyFrom(ctx) in fn
// returns it.
func Once(ctx context.Context, store Store, key string, fn func(context.Context) error, opts OnceOptions) (err error) {
	if opts.LockTimeout <= 0 {
		opts.LockTimeout = DefaultLockTimeout
	}
	if opts.TTL <= 0 {
		opts.TTL = DefaultTTL
	}
	stored := OnceKey(key)
	claimed := time.Now()
	token, held, err := store.Claim(ctx, stored, "", opts.LockTimeout)
	if err != nil {
		return fmt.Errorf("idem: claiming %q: %w", key, err)
	}
	if token == "" {
		if held.State == Completed {
			return nil
		}
		return ErrInProgress
	}
	w := &work{key: Key{Value: key, Scoped: stored}}
	w.start(ctx, store, token, opts.LockTimeout, claimed)
	bg := &w.bg
	defer func() {
		if p := recover(); p != nil {
			w.stop()
			store.Release(bg, stored, token)
			panic(p)
		}
	}()
	ferr := fn(w)
	lost, taken := w.stop()
	if taken {
		return errors.Join(ferr, fmt.Errorf("idem: %q: %w", key, lost))
	}
	// lost, if set, is a claim whose renewals failed: the calls below act only if its
	// token still holds the key (see work).
	if ferr != nil {
		if rerr := store.Release(bg, stored, token); rerr != nil {
			if lost != nil {
				return errors.Join(ferr, fmt.Errorf("idem: %q: %w, and releasing it failed: %w", key, lost, rerr))
			}
			return errors.Join(ferr, fmt.Errorf("idem: releasing %q: %w", key, rerr))
		}
		return ferr
	}
	if err := store.Complete(bg, stored, token, Response{}, opts.TTL); err != nil {
		if lost != nil {
			return fmt.Errorf("idem: %q ran, but %w, and marking it done failed: %w", key, lost, err)
		}
		if errors.Is(err, ErrNotHolder) {
			return fmt.Errorf("idem: %q ran, but %w: its lock timed out before it was marked done", key, ErrClaimLost)
		}
		return fmt.Errorf("idem: %q ran, but marking it done failed: %w", key, err)
	}
	return nil
}
