package etcdlease

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/idgen/idgen/runtime/lease"
	"github.com/idgen/idgen/runtime/millis"
	"github.com/idgen/idgen/runtime/snowflake"
)

// DefaultPrefix starts the names of the keys a Backend uses when Options.Prefix is empty.
const DefaultPrefix = "idgen/lease/"

// maxRaces is how many times Acquire tries again after losing an ID to another claimer.
const maxRaces = 100

// Options configures a Backend. The zero value uses DefaultPrefix.
type Options struct {
	// Prefix starts the names of the keys, DefaultPrefix if empty. Fleets that share an
	// etcd must not share a prefix unless they share their worker IDs.
	Prefix string
}

// Backend is a lease.Backend on etcd; see the package doc for its keys and steps. Safe
// for concurrent use.
type Backend struct {
	c                            *clientv3.Client
	holder, owner, expires, last string
}

var _ lease.RangeBackend = (*Backend)(nil)

// New returns a backend on client whose keys start with opts.Prefix.
func New(client *clientv3.Client, opts Options) (*Backend, error) {
	if client == nil {
		return nil, errors.New("etcdlease: nil client")
	}
	p := opts.Prefix
	if p == "" {
		p = DefaultPrefix
	}
	return &Backend{c: client, holder: p + "holder/", owner: p + "owner/", expires: p + "expires/", last: p + "last/"}, nil
}

// Keys returns the prefixes of the four kinds of keys (holder, owner, expires, last), each
// followed by a worker ID in decimal.
func (b *Backend) Keys() []string { return []string{b.holder, b.owner, b.expires, b.last} }

// ms formats t as 16 decimal digits of Unix milliseconds (millis.Of: rounded up, as every
// backend does), 0 for the zero time: etcd compares values as bytes, and fixed width makes
// that numeric.
func ms(t time.Time) string { return fmt.Sprintf("%016d", millis.Of(t)) }

// parseMs reads a value ms wrote; missing or bad values are the zero time.
func parseMs(kvs []*mvccpb.KeyValue) time.Time {
	if len(kvs) == 0 {
		return time.Time{}
	}
	v, err := strconv.ParseInt(string(kvs[0].Value), 10, 64)
	if err != nil {
		return time.Time{}
	}
	return millis.Time(v)
}

// ttlSeconds is ttl in whole seconds, rounded up, at least 1: what etcd can grant.
func ttlSeconds(ttl time.Duration) int64 {
	return max(1, int64(math.Ceil(ttl.Seconds())))
}

// raise is the operation that sets key to v if it holds less (as ms formats both); key
// exists for every ID ever claimed (the claim creates it).
func raise(key, v string) clientv3.Op {
	return clientv3.OpTxn([]clientv3.Cmp{clientv3.Compare(clientv3.Value(key), "<", v)},
		[]clientv3.Op{clientv3.OpPut(key, v)}, nil)
}

// Acquire implements lease.Backend: it grants an etcd lease and claims the lowest ID in
// [0, max] without a holder key, one transaction per try.
func (b *Backend) Acquire(ctx context.Context, max int64, token string, ttl time.Duration) (lease.Claim, error) {
	if max < 0 {
		return lease.Claim{}, fmt.Errorf("etcdlease: max worker ID %d is negative", max)
	}
	return b.acquire(ctx, 0, max, token, ttl)
}

// AcquireRange implements lease.RangeBackend: Acquire within [min, max], by the same
// transaction on the ID's holder key, so that a fleet sharing worker IDs with another (the
// old service during a switch) keeps off its range. Every ID in [min, max] held is an
// *lease.AllTakenError naming min and max.
func (b *Backend) AcquireRange(ctx context.Context, min, max int64, token string, ttl time.Duration) (lease.Claim, error) {
	if min < 0 || max < min {
		return lease.Claim{}, fmt.Errorf("etcdlease: worker ID range [%d, %d] is empty or negative", min, max)
	}
	return b.acquire(ctx, min, max, token, ttl)
}

func (b *Backend) acquire(ctx context.Context, min, max int64, token string, ttl time.Duration) (lease.Claim, error) {
	g, err := b.c.Grant(ctx, ttlSeconds(ttl))
	if err != nil {
		return lease.Claim{}, fmt.Errorf("etcdlease: granting a lease of %v: %w", ttl, err)
	}
	claimed := false
	defer func() {
		if !claimed {
			// Nothing is attached to it; revoking only spares etcd the countdown.
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
			b.c.Revoke(rctx, g.ID)
			cancel()
		}
	}()
	for range maxRaces {
		w, err := b.lowestFree(ctx, min, max)
		if err != nil {
			return lease.Claim{}, err
		}
		start := time.Now()
		id := strconv.FormatInt(w, 10)
		hk, ok, ek, lk := b.holder+id, b.owner+id, b.expires+id, b.last+id
		resp, err := b.c.Txn(ctx).
			If(clientv3.Compare(clientv3.CreateRevision(hk), "=", 0)).
			Then(
				clientv3.OpGet(ok), clientv3.OpGet(ek), clientv3.OpGet(lk),
				clientv3.OpPut(hk, token, clientv3.WithLease(g.ID)),
				clientv3.OpPut(ok, token),
				clientv3.OpPut(ek, ms(start.Add(ttl))),
				clientv3.OpTxn([]clientv3.Cmp{clientv3.Compare(clientv3.CreateRevision(lk), "=", 0)},
					[]clientv3.Op{clientv3.OpPut(lk, ms(time.Time{}))}, nil),
			).Commit()
		if err != nil {
			return lease.Claim{}, fmt.Errorf("etcdlease: claiming worker ID %d: %w", w, err)
		}
		if !resp.Succeeded {
			// Another claimer took it between the listing and the transaction.
			if err := pause(ctx); err != nil {
				return lease.Claim{}, fmt.Errorf("etcdlease: claiming a worker ID: %w", err)
			}
			continue
		}
		claimed = true
		r := resp.Responses
		owner, prev, last := r[0].GetResponseRange().Kvs, r[1].GetResponseRange().Kvs, r[2].GetResponseRange().Kvs
		c := lease.Claim{Worker: w, Fresh: len(owner) == 0 || len(prev) == 0, Expires: time.Now().Add(ttl)}
		if !c.Fresh {
			c.Last, c.Prev = parseMs(last), parseMs(prev)
		}
		return c, nil
	}
	return lease.Claim{}, fmt.Errorf("etcdlease: claiming a worker ID: lost %d races to other claimers", maxRaces)
}

// lowestFree lists the holder keys and returns the lowest ID in [min, max] without one, or
// an *AllTakenError. Only a key whose suffix is an ID as Acquire writes it (canonical
// decimal: no sign, no leading zero) holds that ID: a stray "01", "+1" or "-0" is not the
// key the claim's transaction compares, so counting it would make Acquire try a held ID
// again and again, or skip a free one.
func (b *Backend) lowestFree(ctx context.Context, min, max int64) (int64, error) {
	resp, err := b.c.Get(ctx, b.holder, clientv3.WithPrefix(), clientv3.WithKeysOnly())
	if err != nil {
		return 0, fmt.Errorf("etcdlease: listing the worker IDs held: %w", err)
	}
	held := make([]int64, 0, len(resp.Kvs))
	for _, kv := range resp.Kvs {
		id := strings.TrimPrefix(string(kv.Key), b.holder)
		if w, err := strconv.ParseInt(id, 10, 64); err == nil && w >= min && w <= max && strconv.FormatInt(w, 10) == id {
			held = append(held, w)
		}
	}
	slices.Sort(held)
	held = slices.Compact(held)
	w := min
	for _, h := range held {
		if h != w {
			break
		}
		w++
	}
	if w > max {
		return 0, &lease.AllTakenError{Min: min, Max: max}
	}
	return w, nil
}

// Renew implements lease.Backend: one transaction records last and the lease's new end if
// token holds worker, then one KeepAliveOnce extends the etcd lease.
func (b *Backend) Renew(ctx context.Context, worker int64, token string, ttl time.Duration, last time.Time) error {
	start := time.Now()
	id := strconv.FormatInt(worker, 10)
	hk := b.holder + id
	resp, err := b.c.Txn(ctx).
		If(clientv3.Compare(clientv3.Value(hk), "=", token)).
		Then(clientv3.OpGet(hk), raise(b.last+id, ms(last)), clientv3.OpPut(b.expires+id, ms(start.Add(ttl)))).
		Else(clientv3.OpGet(b.owner+id), clientv3.OpGet(b.expires+id)).
		Commit()
	if err != nil {
		return fmt.Errorf("etcdlease: renewing worker ID %d: %w", worker, err)
	}
	if !resp.Succeeded {
		return lost(worker, token, resp)
	}
	h := resp.Responses[0].GetResponseRange().Kvs
	if len(h) == 0 {
		return fmt.Errorf("etcdlease: renewing worker ID %d: holder key vanished inside a transaction", worker)
	}
	if _, err := b.c.KeepAliveOnce(ctx, clientv3.LeaseID(h[0].Lease)); err != nil {
		if errors.Is(err, rpctypes.ErrLeaseNotFound) {
			// It expired between the transaction and the keep-alive.
			return &lease.LostError{Worker: worker, Expired: start.Add(ttl)}
		}
		return fmt.Errorf("etcdlease: renewing worker ID %d: keep-alive: %w", worker, err)
	}
	return nil
}

// Release implements lease.Backend: one transaction, if token made the latest claim of
// worker, records last, ends the lease's record now and deletes the holder key; then the
// etcd lease is revoked.
func (b *Backend) Release(ctx context.Context, worker int64, token string, last time.Time) error {
	id := strconv.FormatInt(worker, 10)
	hk, ek := b.holder+id, b.expires+id
	now := ms(time.Now())
	resp, err := b.c.Txn(ctx).
		If(clientv3.Compare(clientv3.Value(b.owner+id), "=", token)).
		Then(
			clientv3.OpGet(hk),
			raise(b.last+id, ms(last)),
			clientv3.OpTxn([]clientv3.Cmp{clientv3.Compare(clientv3.Value(ek), ">", now)}, []clientv3.Op{clientv3.OpPut(ek, now)}, nil),
			clientv3.OpTxn([]clientv3.Cmp{clientv3.Compare(clientv3.Value(hk), "=", token)}, []clientv3.Op{clientv3.OpDelete(hk)}, nil),
		).
		Else(clientv3.OpGet(b.owner+id), clientv3.OpGet(ek)).
		Commit()
	if err != nil {
		return fmt.Errorf("etcdlease: releasing worker ID %d: %w", worker, err)
	}
	if !resp.Succeeded {
		return lost(worker, token, resp)
	}
	if h := resp.Responses[0].GetResponseRange().Kvs; len(h) > 0 && string(h[0].Value) == token && h[0].Lease != 0 {
		// The holder key is gone already; revoking only spares etcd the countdown.
		b.c.Revoke(ctx, clientv3.LeaseID(h[0].Lease))
	}
	return nil
}

// lost reads the Else branch of a renewal or release (owner, expires) into a
// *lease.LostError.
func lost(worker int64, token string, resp *clientv3.TxnResponse) error {
	owner, exp := resp.Responses[0].GetResponseRange().Kvs, resp.Responses[1].GetResponseRange().Kvs
	switch {
	case len(owner) == 0:
		return &lease.LostError{Worker: worker}
	case string(owner[0].Value) != token:
		return &lease.LostError{Worker: worker, Taken: true}
	}
	return &lease.LostError{Worker: worker, Expired: parseMs(exp)}
}

// pause sleeps for a random 1 to 4 ms, or until ctx is done, between claims that lost a
// race, so that racing claimers spread out.
func pause(ctx context.Context) error {
	return snowflake.SystemClock().Sleep(ctx, time.Millisecond+rand.N(3*time.Millisecond))
}
