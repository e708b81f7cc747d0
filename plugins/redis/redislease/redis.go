package redislease

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idgen/idgen/plugins/redis/internal/redisdurable"
	"github.com/idgen/idgen/runtime/lease"
	"github.com/idgen/idgen/runtime/millis"
)

// DefaultPrefix starts the names of the keys a [Backend] uses when given no prefix.
const DefaultPrefix = "idgen:lease:"

// DefaultClusterPrefix starts the names of the keys a [Backend] on a
// *redis.ClusterClient uses when given no prefix: DefaultPrefix with a hash tag, so that
// the three hashes every script touches are in one slot.
const DefaultClusterPrefix = "{idgen:lease}:"

// Every script reads the time from Redis (TIME), so expiry is judged by one clock whatever
// the holders' clocks say. Times are Unix milliseconds. The three hashes are keyed by
// worker ID: KEYS[1] the holder token, KEYS[2] when the lease ends, KEYS[3] the latest tick
// recorded. Expiry is a field, not a key TTL, because the recorded tick must outlive the
// lease.
const luaNow = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`

// acquireLua: ARGV max, token, ttl, min. Returns {worker, last, previous expiry, new
// expiry, fresh}, or {-1} when every ID in [min, max] is held. fresh is 1 when the holder or the
// expires field of the ID did not exist: the ID was never leased, or Redis lost it.
var acquireLua = redis.NewScript(luaNow + `
local max, ttl, min = tonumber(ARGV[1]), tonumber(ARGV[3]), tonumber(ARGV[4])
for id = min, max do
	local f = tostring(id)
	local rec = redis.call('HGET', KEYS[2], f)
	local exp = tonumber(rec or '0')
	if exp <= now then
		local fresh = 0
		if not rec or redis.call('HEXISTS', KEYS[1], f) == 0 then
			fresh = 1
		end
		redis.call('HSET', KEYS[1], f, ARGV[2])
		redis.call('HSET', KEYS[2], f, string.format('%d', now + ttl))
		return {id, tonumber(redis.call('HGET', KEYS[3], f) or '0'), exp, now + ttl, fresh}
	end
end
return {-1}
`)

// renewLua: ARGV worker, token, ttl, last. Returns {1}, or {0, holder or "", expiry} when
// token does not hold a live lease on worker.
var renewLua = redis.NewScript(luaNow + `
local f = ARGV[1]
local holder = redis.call('HGET', KEYS[1], f)
local exp = tonumber(redis.call('HGET', KEYS[2], f) or '0')
if holder ~= ARGV[2] or exp <= now then
	return {0, holder or '', exp}
end
redis.call('HSET', KEYS[2], f, string.format('%d', now + tonumber(ARGV[3])))
if tonumber(ARGV[4]) > tonumber(redis.call('HGET', KEYS[3], f) or '0') then
	redis.call('HSET', KEYS[3], f, ARGV[4])
end
return {1}
`)

// releaseLua: ARGV worker, token, last. Returns {1}, or {0, holder or "", expiry} when
// token does not hold worker.
var releaseLua = redis.NewScript(luaNow + `
local f = ARGV[1]
local holder = redis.call('HGET', KEYS[1], f)
local exp = tonumber(redis.call('HGET', KEYS[2], f) or '0')
if holder ~= ARGV[2] then
	return {0, holder or '', exp}
end
if exp > now then
	redis.call('HSET', KEYS[2], f, string.format('%d', now))
end
if tonumber(ARGV[3]) > tonumber(redis.call('HGET', KEYS[3], f) or '0') then
	redis.call('HSET', KEYS[3], f, ARGV[3])
end
return {1}
`)

// Backend is a lease.Backend on three hashes in Redis, each step one Lua script; the
// package doc has its keys, its scripts and what it needs of the server. Safe for
// concurrent use.
type Backend struct {
	c    redis.UniversalClient
	keys []string
}

var _ lease.RangeBackend = (*Backend)(nil)

// Options configures a [Backend]. The zero value uses DefaultPrefix (DefaultClusterPrefix
// on a *redis.ClusterClient) and checks that the server persists its data.
type Options struct {
	// Prefix starts the names of the keys, DefaultPrefix if empty (DefaultClusterPrefix on
	// a *redis.ClusterClient). On a *redis.ClusterClient it must contain a hash tag, a
	// non-empty "{...}" whose text alone decides the slot ("{orders}:lease:",
	// "orders:{lease}:"): each script touches the three hashes, which Redis Cluster runs
	// only when they are in one slot. New refuses a prefix without one (a *PrefixError)
	// rather than adding it, because every process of a fleet must name the same keys. A
	// *redis.Ring shards by the first key of each script, so it needs no tag.
	Prefix string
	// AllowNoPersistence skips the check New makes that the server keeps its data across
	// a restart (INFO persistence: aof_enabled:1 on the server, on every master of a
	// *redis.ClusterClient, on every shard of a *redis.Ring). Without it New refuses a
	// server with the AOF off, even with RDB snapshots, which lose the writes since the
	// last one, and a server that refuses INFO (managed services), with a
	// *NotPersistentError. Set it for a server you know persists by means the check
	// cannot see, or to accept what a server that forgets does: after a restart without
	// its data every worker ID looks free, and a new holder may take one still in use and
	// issue IDs its previous holder already issued.
	AllowNoPersistence bool
}

// NotPersistentError is returned by New for a server that may forget what it stores
// across a restart, or whose persistence cannot be checked: Addr names the server (the
// master found wanting, on a cluster), Reason says what it reported, Err is the server's
// refusal of INFO when that is why (and is what Unwrap returns), and the message says how
// to turn persistence on or opt out with Options.AllowNoPersistence. It matches
// ErrNotPersistent, and is the type runtime/segment and runtime/idem return too.
type NotPersistentError = redisdurable.Error

// ErrNotPersistent is matched by every *NotPersistentError.
var ErrNotPersistent = redisdurable.ErrNotPersistent

// New returns a backend on the keys Prefix+"holder", Prefix+"expires" and
// Prefix+"last" of client (a *redis.Client, *redis.ClusterClient or *redis.Ring). On a
// *redis.ClusterClient a prefix without a hash tag is a *PrefixError. Unless opts.AllowNoPersistence is set, it first asks the server (every master of a
// cluster, every shard of a ring) whether it persists its data, and fails with a
// *NotPersistentError if it may not, or with the client's error if the server cannot be
// reached. A nil client is an error.
func New(ctx context.Context, client redis.UniversalClient, opts Options) (*Backend, error) {
	if client == nil {
		return nil, redisdurable.Open(ctx, "redislease", client, true)
	}
	prefix := opts.Prefix
	_, cluster := client.(*redis.ClusterClient)
	switch {
	case prefix == "" && cluster:
		prefix = DefaultClusterPrefix
	case prefix == "":
		prefix = DefaultPrefix
	case cluster && !hashTagged(prefix):
		return nil, &PrefixError{Prefix: prefix}
	}
	if err := redisdurable.Open(ctx, "redislease", client, opts.AllowNoPersistence); err != nil {
		return nil, err
	}
	return &Backend{c: client, keys: []string{prefix + "holder", prefix + "expires", prefix + "last"}}, nil
}

// hashTagged reports whether every key starting with prefix has the same hash tag, the
// one in prefix: Redis Cluster hashes the text between the first "{" and the first "}"
// after it, when that text is not empty.
func hashTagged(prefix string) bool {
	i := strings.IndexByte(prefix, '{')
	if i < 0 {
		return false
	}
	j := strings.IndexByte(prefix[i+1:], '}')
	return j > 0
}

// PrefixError is returned by New on a *redis.ClusterClient for a prefix without a
// hash tag: the three hashes would fall in different slots, and Redis Cluster refuses
// scripts that touch more than one (CROSSSLOT). It matches ErrPrefix.
type PrefixError struct {
	Prefix string
}

// ErrPrefix is matched by every *PrefixError.
var ErrPrefix = errors.New("redislease: key prefix unusable on this client")

// Error implements error.
func (e *PrefixError) Error() string {
	return fmt.Sprintf("redislease: prefix %q has no hash tag: on Redis Cluster the lease's three hashes must share a slot; "+
		"put one in the prefix, such as %q", e.Prefix, "{"+strings.TrimSuffix(e.Prefix, ":")+"}:")
}

// Is reports whether target is ErrPrefix.
func (e *PrefixError) Is(target error) bool { return target == ErrPrefix }

// Keys returns the names of the three hashes: holder tokens, expiry times and recorded
// ticks, each keyed by worker ID.
func (r *Backend) Keys() []string { return append([]string(nil), r.keys...) }

// Acquire implements lease.Backend: one script walks the IDs from 0 and claims the first with no
// live lease.
func (r *Backend) Acquire(ctx context.Context, max int64, token string, ttl time.Duration) (lease.Claim, error) {
	if max < 0 {
		return lease.Claim{}, fmt.Errorf("redislease: max worker ID %d is negative", max)
	}
	return r.acquire(ctx, 0, max, token, ttl)
}

// AcquireRange implements lease.RangeBackend: Acquire within [min, max], in the same one
// script walking the IDs from min, so that a fleet sharing worker IDs with another (the old
// service during a switch) keeps off its range. Every ID in [min, max] held is an
// *lease.AllTakenError naming min and max.
func (r *Backend) AcquireRange(ctx context.Context, min, max int64, token string, ttl time.Duration) (lease.Claim, error) {
	if min < 0 || max < min {
		return lease.Claim{}, fmt.Errorf("redislease: worker ID range [%d, %d] is empty or negative", min, max)
	}
	return r.acquire(ctx, min, max, token, ttl)
}

func (r *Backend) acquire(ctx context.Context, min, max int64, token string, ttl time.Duration) (lease.Claim, error) {
	v, err := acquireLua.Run(ctx, r.c, r.keys, max, token, millis.Duration(ttl), min).Int64Slice()
	if err != nil {
		return lease.Claim{}, fmt.Errorf("redislease: claiming a worker ID: %w", err)
	}
	if len(v) == 1 && v[0] < 0 {
		return lease.Claim{}, &lease.AllTakenError{Min: min, Max: max}
	}
	if len(v) != 5 {
		return lease.Claim{}, fmt.Errorf("redislease: claiming a worker ID: unexpected reply %v", v)
	}
	return lease.Claim{Worker: v[0], Last: millis.Time(v[1]), Prev: millis.Time(v[2]), Expires: millis.Time(v[3]), Fresh: v[4] == 1}, nil
}

// Renew implements lease.Backend.
func (r *Backend) Renew(ctx context.Context, worker int64, token string, ttl time.Duration, last time.Time) error {
	v, err := renewLua.Run(ctx, r.c, r.keys, worker, token, millis.Duration(ttl), millis.Of(last)).Slice()
	return r.result("renewing", worker, token, v, err)
}

// Release implements lease.Backend.
func (r *Backend) Release(ctx context.Context, worker int64, token string, last time.Time) error {
	v, err := releaseLua.Run(ctx, r.c, r.keys, worker, token, millis.Of(last)).Slice()
	return r.result("releasing", worker, token, v, err)
}

func (r *Backend) result(doing string, worker int64, token string, v []any, err error) error {
	if err != nil {
		return fmt.Errorf("redislease: %s worker ID %d: %w", doing, worker, err)
	}
	if len(v) == 1 && v[0] == int64(1) {
		return nil
	}
	if len(v) != 3 {
		return fmt.Errorf("redislease: %s worker ID %d: unexpected reply %v", doing, worker, v)
	}
	holder, _ := v[1].(string)
	exp, _ := v[2].(int64)
	switch {
	case holder == "":
		return &lease.LostError{Worker: worker}
	case holder != token:
		return &lease.LostError{Worker: worker, Taken: true}
	}
	return &lease.LostError{Worker: worker, Expired: millis.Time(exp)}
}
