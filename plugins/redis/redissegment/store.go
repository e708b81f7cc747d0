package redissegment

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/idgen/idgen/plugins/redis/internal/redisdurable"
	"github.com/idgen/idgen/runtime/segment"
)

// DefaultPrefix starts the names of the keys a [Store] uses when given no prefix. It is
// the prefix segment.NewRedis used, so a Store finds the counters it left.
const DefaultPrefix = "idgen:segment:"

// Store is a segment.Store on one integer key per tag, prefix+tag, each reservation one
// INCRBY. Safe for concurrent use by any number of processes. The key holds the highest
// ID reserved; set it higher by hand to start a tag elsewhere, never lower. A server that
// loses the key moves the counter back and repeats IDs: New refuses a server without the
// AOF (see Options.AllowNoPersistence).
type Store struct {
	c      redis.UniversalClient
	prefix string
}

var _ segment.Store = (*Store)(nil)

// Options configures a [Store]. The zero value uses DefaultPrefix and checks that the
// server persists.
type Options struct {
	// Prefix starts the names of the keys, DefaultPrefix if empty.
	Prefix string
	// AllowNoPersistence skips the check New makes that the server keeps its data across
	// a restart (INFO persistence: aof_enabled:1 on the server, on every master of a
	// *redis.ClusterClient, on every shard of a *redis.Ring). Without it New refuses a
	// server with the AOF off, even with RDB snapshots, which lose the writes since the
	// last one, and a server that refuses INFO (managed services), with a
	// *NotPersistentError. Set it for a server you know persists by means the check
	// cannot see, or to accept what a server that forgets does: after a restart without
	// its data (or a FLUSHALL) a tag's counter starts again from 0, and a process that has
	// not reserved since then gets blocks other processes already handed out. Each
	// segment.Allocator refuses a block not above the highest it has seen, so one process
	// never repeats its own IDs, but across processes IDs repeat; no check in this store
	// can prevent that, since what it would compare against is what the server forgot.
	AllowNoPersistence bool
}

// NotPersistentError is returned by New for a server that may forget what it stores
// across a restart, or whose persistence cannot be checked: Addr names the server (the
// master found wanting, on a cluster), Reason says what it reported, Err is the server's
// refusal of INFO when that is why (and is what Unwrap returns), and the message says how
// to turn persistence on or opt out with Options.AllowNoPersistence. It matches
// ErrNotPersistent, and is the type the Redis stores of runtime/lease and runtime/idem
// return too.
type NotPersistentError = redisdurable.Error

// ErrNotPersistent is matched by every *NotPersistentError.
var ErrNotPersistent = redisdurable.ErrNotPersistent

// New returns a Store on client (a *redis.Client, *redis.ClusterClient or *redis.Ring)
// whose keys start with opts.Prefix. Unless opts.AllowNoPersistence is set, it first asks
// the server whether it persists its data and fails with a *NotPersistentError if it may
// not, or with the client's error if the server cannot be reached.
func New(ctx context.Context, client redis.UniversalClient, opts Options) (*Store, error) {
	if client == nil {
		return nil, errors.New("redissegment: nil client")
	}
	if !opts.AllowNoPersistence {
		if err := redisdurable.Check(ctx, client); err != nil {
			return nil, fmt.Errorf("redissegment: %w", err)
		}
	}
	prefix := opts.Prefix
	if prefix == "" {
		prefix = DefaultPrefix
	}
	return &Store{c: client, prefix: prefix}, nil
}

// Reserve implements segment.Store: one INCRBY of prefix+tag by step, which creates the
// key at 0 for a new tag.
func (s *Store) Reserve(ctx context.Context, tag string, step int64) (segment.Range, error) {
	if tag == "" {
		return segment.Range{}, errors.New("redissegment: empty tag")
	}
	if step <= 0 {
		return segment.Range{}, fmt.Errorf("redissegment: step %d for tag %q: want a positive step", step, tag)
	}
	max, err := s.c.IncrBy(ctx, s.prefix+tag, step).Result()
	if err != nil {
		return segment.Range{}, fmt.Errorf("redissegment: reserving %d IDs of tag %q: %w", step, tag, err)
	}
	return segment.Range{First: max - step + 1, Last: max}, nil
}
