package registry

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// DefaultRedisPrefix starts the keys of a Redis Store given no prefix: redislease's
// default prefix, so that the records sit beside the leases.
const DefaultRedisPrefix = "idgen:lease:"

// Redis is a Store on Redis: one key per instance, Prefix+"server:"+ID, with a TTL, and
// an index of them, the sorted set Prefix+"servers" (member: the instance ID, score: its
// record's expiry in Unix ms), so that List reads the records it names instead of
// scanning the keyspace. The record's TTL is what ends it; the index only bounds the
// reads, and its members are purged PurgeAfter past their expiry. Each key is read and
// written on its own (no multi-key command), so a Redis Cluster serves it whatever the
// slots of the keys.
type Redis struct {
	rdb    redis.UniversalClient
	prefix string // ends in "server:"
	index  string // the sorted set of the instance IDs
}

// NewRedis returns the Store under prefix (DefaultRedisPrefix if empty) on rdb: a
// standalone server, a *redis.ClusterClient or a *redis.Ring.
func NewRedis(rdb redis.UniversalClient, prefix string) *Redis {
	if prefix == "" {
		prefix = DefaultRedisPrefix
	}
	return &Redis{rdb: rdb, prefix: prefix + "server:", index: prefix + "servers"}
}

// Put implements Store: SET with PX, so that Redis expires a record no one renews; the
// instance ID added to the index with the record's expiry, the index's members more than
// PurgeAfter past theirs removed, and the index itself set to expire once every member
// it holds has.
func (s *Redis) Put(ctx context.Context, in Instance, ttl time.Duration) error {
	if err := checkInstance(in); err != nil {
		return err
	}
	now := time.Now()
	exp := now.Add(ttl)
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, s.prefix+in.ID, encode(in, exp), ttl)
		p.ZAdd(ctx, s.index, redis.Z{Score: float64(exp.UnixMilli()), Member: in.ID})
		p.ZRemRangeByScore(ctx, s.index, "-inf", "("+strconv.FormatInt(now.Add(-PurgeAfter).UnixMilli(), 10))
		p.PExpire(ctx, s.index, ttl+PurgeAfter)
		return nil
	})
	if err != nil {
		return fmt.Errorf("registry: writing %s: %w", in.ID, err)
	}
	return nil
}

// List implements Store: the index's members not more than PurgeAfter past their expiry
// (a writer's clock may run behind this one's), then a GET of each record; one that
// expired is left out, one that does not decode is skipped (ErrUndecodable).
func (s *Redis) List(ctx context.Context) ([]Instance, error) {
	from := strconv.FormatInt(time.Now().Add(-PurgeAfter).UnixMilli(), 10)
	ids, err := s.rdb.ZRangeByScore(ctx, s.index, &redis.ZRangeBy{Min: from, Max: "+inf"}).Result()
	if err != nil {
		return nil, fmt.Errorf("registry: listing: %w", err)
	}
	if len(ids) == 0 {
		return nil, nil
	}
	gets := make([]*redis.StringCmd, len(ids))
	_, err = s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, id := range ids {
			gets[i] = p.Get(ctx, s.prefix+id)
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("registry: listing: %w", err)
	}
	var out []Instance
	var sk skipped
	for i, g := range gets {
		v, err := g.Bytes()
		if errors.Is(err, redis.Nil) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("registry: listing: %w", err)
		}
		in, err := decode(ids[i], v)
		if err != nil {
			sk.add(err)
			continue
		}
		out = append(out, in)
	}
	return out, sk.err()
}

// Delete implements Store.
func (s *Redis) Delete(ctx context.Context, id string) error {
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		p.Del(ctx, s.prefix+id)
		p.ZRem(ctx, s.index, id)
		return nil
	})
	if err != nil {
		return fmt.Errorf("registry: deleting %s: %w", id, err)
	}
	return nil
}
