package registry

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// DefaultRedisPrefix starts the keys of a Redis Store given no prefix: redislease's
// default prefix, so that the records sit beside the leases.
const DefaultRedisPrefix = "idgen:lease:"

// scanCount is the COUNT hint of each SCAN.
const scanCount = 256

// Redis is a Store on Redis: one key per instance, Prefix+"server:"+ID, with a TTL.
type Redis struct {
	rdb    redis.UniversalClient
	prefix string // ends in "server:"
}

// NewRedis returns the Store under prefix (DefaultRedisPrefix if empty) on rdb: a
// standalone server, a *redis.ClusterClient (listed over every master) or a
// *redis.Ring (over every shard).
func NewRedis(rdb redis.UniversalClient, prefix string) *Redis {
	if prefix == "" {
		prefix = DefaultRedisPrefix
	}
	return &Redis{rdb: rdb, prefix: prefix + "server:"}
}

// Put implements Store: SET with PX, so that Redis expires a record no one renews.
func (s *Redis) Put(ctx context.Context, in Instance, ttl time.Duration) error {
	if err := checkInstance(in); err != nil {
		return err
	}
	if err := s.rdb.Set(ctx, s.prefix+in.ID, encode(in, time.Now().Add(ttl)), ttl).Err(); err != nil {
		return fmt.Errorf("registry: writing %s: %w", in.ID, err)
	}
	return nil
}

// List implements Store: SCAN for the keys (never KEYS, which blocks the server), then
// GET each; a key that expired in between is left out.
func (s *Redis) List(ctx context.Context) ([]Instance, error) {
	var mu sync.Mutex
	var out []Instance
	each := func(ctx context.Context, c *redis.Client) error {
		found, err := s.scan(ctx, c)
		mu.Lock()
		out = append(out, found...)
		mu.Unlock()
		return err
	}
	var err error
	switch c := s.rdb.(type) {
	case *redis.ClusterClient:
		err = c.ForEachMaster(ctx, each)
	case *redis.Ring:
		err = c.ForEachShard(ctx, each)
	case *redis.Client:
		err = each(ctx, c)
	default:
		err = fmt.Errorf("%w Redis client %T: want *redis.Client, *redis.ClusterClient or *redis.Ring", ErrInvalid, s.rdb)
	}
	if err != nil {
		return nil, fmt.Errorf("registry: listing: %w", err)
	}
	return out, nil
}

func (s *Redis) scan(ctx context.Context, c *redis.Client) ([]Instance, error) {
	var out []Instance
	it := c.Scan(ctx, 0, globEscape(s.prefix)+"*", scanCount).Iterator()
	for it.Next(ctx) {
		key := it.Val()
		v, err := c.Get(ctx, key).Bytes()
		if errors.Is(err, redis.Nil) {
			continue
		}
		if err != nil {
			return out, err
		}
		in, err := decode(strings.TrimPrefix(key, s.prefix), v)
		if err != nil {
			return out, err
		}
		out = append(out, in)
	}
	return out, it.Err()
}

// globEscape escapes the characters SCAN's MATCH reads as a pattern.
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

// Delete implements Store.
func (s *Redis) Delete(ctx context.Context, id string) error {
	if err := s.rdb.Del(ctx, s.prefix+id).Err(); err != nil {
		return fmt.Errorf("registry: deleting %s: %w", id, err)
	}
	return nil
}
