package segment

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/idgen/idgen/internal/redisdurable"
)

// DefaultPrefix starts the names of the keys a [Redis] store uses when given no prefix.
const DefaultPrefix = "idgen:segment:"

// Redis is a Store on one integer key per tag, prefix+tag, each reservation one INCRBY.
// Safe for concurrent use by any number of processes. The key holds the highest ID
// reserved; set it higher by hand to start a tag elsewhere, never lower. A server that
// loses the key moves the counter back and repeats IDs: NewRedis refuses a server
// without the AOF (see RedisOptions.AllowNoPersistence).
type Redis struct {
	c      redis.UniversalClient
	prefix string
}

// RedisOptions configures a [Redis] store. The zero value uses DefaultPrefix.
type RedisOptions struct {
	// Prefix starts the names of the keys, DefaultPrefix if empty.
	Prefix string
	// AllowNoPersistence skips the check NewRedis makes that the server keeps its data
	// across a restart (INFO persistence: aof_enabled:1 on the server, on every master of a
	// *redis.ClusterClient, on every shard of a *redis.Ring). Without it NewRedis refuses
	// a server with the AOF off, even with RDB snapshots, which lose the writes since the
	// last one, and a server that refuses INFO (managed services), with a
	// *NotPersistentError. Set it for a server you know persists by means the check
	// cannot see, or to accept what a server that forgets does: after a restart without its data
	// (or a FLUSHALL) a tag's counter starts again from 0, and a process that has not
	// reserved since then gets blocks other processes already handed out. Each
	// Allocator refuses a block not above the highest it has seen, so one process never
	// repeats its own IDs, but across processes IDs repeat; no check in this store can
	// prevent that, since what it would compare against is what the server forgot.
	AllowNoPersistence bool
}

// NotPersistentError is returned by NewRedis for a server that may forget what it stores
// across a restart, or whose persistence cannot be checked: Addr names the server (the
// master found wanting, on a cluster), Reason says what it reported, Err is the server's
// refusal of INFO when that is why (and is what Unwrap returns), and the message says how
// to turn persistence on or opt out with RedisOptions.AllowNoPersistence. It matches ErrNotPersistent, and is the type
// runtime/lease and runtime/idem return too.
type NotPersistentError = redisdurable.Error

// ErrNotPersistent is matched by every *NotPersistentError.
var ErrNotPersistent = redisdurable.ErrNotPersistent

// NewRedis returns a Store on client (a *redis.Client, *redis.ClusterClient or
// *redis.Ring) whose keys start with opts.Prefix. Unless opts.AllowNoPersistence is set,
// it first asks the server whether it persists its data and fails with a
// *NotPersistentError if it may not.
func NewRedis(ctx context.Context, client redis.UniversalClient, opts RedisOptions) (*Redis, error) {
	if !opts.AllowNoPersistence {
		if err := redisdurable.Check(ctx, client); err != nil {
			return nil, err
		}
	}
	prefix := opts.Prefix
	if prefix == "" {
		prefix = DefaultPrefix
	}
	return &Redis{c: client, prefix: prefix}, nil
}

// Reserve implements Store.
func (r *Redis) Reserve(ctx context.Context, tag string, step int64) (Range, error) {
	if err := checkArgs(tag, step); err != nil {
		return Range{}, err
	}
	max, err := r.c.IncrBy(ctx, r.prefix+tag, step).Result()
	if err != nil {
		return Range{}, fmt.Errorf("segment: reserving %d IDs of tag %q: %w", step, tag, err)
	}
	return Range{First: max - step + 1, Last: max}, nil
}
