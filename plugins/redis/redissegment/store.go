package redissegment

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

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
// whose keys start with opts.Prefix. Unless opts.AllowNoPersistence is set, it first asks the server (every master of a
// cluster, every shard of a ring) whether it persists its data, and fails with a
// *NotPersistentError if it may not, or with the client's error if the server cannot be
// reached. A nil client is an error.
func New(ctx context.Context, client redis.UniversalClient, opts Options) (*Store, error) {
	if err := redisdurable.Open(ctx, "redissegment", client, opts.AllowNoPersistence); err != nil {
		return nil, err
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

// Create sets tag's counter so that its first block starts at first (SET prefix+tag
// first-1 NX). It fails with an error matching segment.ErrTagExists if the key exists,
// and leaves it as it is (moving a counter back would repeat IDs). first and step must be
// positive; Redis keeps no step, so step is only checked.
func (s *Store) Create(ctx context.Context, tag string, first, step int64) error {
	switch {
	case tag == "":
		return errors.New("redissegment: empty tag")
	case first <= 0 || step <= 0:
		return fmt.Errorf("redissegment: creating tag %q at %d, step %d: want a positive first ID and step", tag, first, step)
	}
	ok, err := s.c.SetNX(ctx, s.prefix+tag, first-1, 0).Result()
	if err != nil {
		return fmt.Errorf("redissegment: creating tag %q: %w", tag, err)
	}
	if !ok {
		return fmt.Errorf("%w: %q", segment.ErrTagExists, tag)
	}
	return nil
}

// Tags returns the counter of every tag under the prefix (SCAN, on every master of a
// cluster), ordered by tag, with Step 0: Redis keeps no step. Keys under the prefix
// include those of a store whose prefix extends it ("a:" and "a:b:"); a key that does
// not hold an integer is skipped. The SCAN walks the whole keyspace.
func (s *Store) Tags(ctx context.Context) ([]segment.Counter, error) {
	var mu sync.Mutex
	var out []segment.Counter
	list := func(ctx context.Context, c redis.Cmdable) error {
		iter := c.Scan(ctx, 0, globEscape(s.prefix)+"*", 1000).Iterator()
		var keys []string
		for iter.Next(ctx) {
			keys = append(keys, iter.Val())
		}
		if err := iter.Err(); err != nil {
			return err
		}
		for _, k := range keys {
			max, err := c.Get(ctx, k).Int64()
			if errors.Is(err, redis.Nil) || (err != nil && !isConnErr(err)) {
				continue // gone since the SCAN, or not a counter
			}
			if err != nil {
				return err
			}
			mu.Lock()
			out = append(out, segment.Counter{Tag: strings.TrimPrefix(k, s.prefix), Max: max})
			mu.Unlock()
		}
		return nil
	}
	each := func(ctx context.Context, c *redis.Client) error { return list(ctx, c) }
	var err error
	switch c := s.c.(type) {
	case *redis.ClusterClient:
		err = c.ForEachMaster(ctx, each)
	case *redis.Ring:
		err = c.ForEachShard(ctx, each)
	default:
		err = list(ctx, c)
	}
	if err != nil {
		return nil, fmt.Errorf("redissegment: listing tags: %w", err)
	}
	slices.SortFunc(out, func(a, b segment.Counter) int { return strings.Compare(a.Tag, b.Tag) })
	return out, nil
}

// isConnErr tells a failure to reach Redis from a reply about the key (a value that is
// not an integer, a key of another type).
func isConnErr(err error) bool {
	var re redis.Error
	return !errors.As(err, &re) && !errors.Is(err, strconv.ErrSyntax)
}

// globEscape escapes the glob characters of SCAN's MATCH in s.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[]\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
