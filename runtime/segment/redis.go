package segment

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// DefaultPrefix starts the names of the keys a [Redis] store uses when given no prefix.
const DefaultPrefix = "idgen:segment:"

// Redis is a Store on one integer key per tag, prefix+tag, each reservation one INCRBY.
// Safe for concurrent use by any number of processes. The key holds the highest ID
// reserved; set it higher by hand to start a tag elsewhere, never lower.
type Redis struct {
	c      redis.UniversalClient
	prefix string
}

// RedisOptions configures a [Redis] store. The zero value uses DefaultPrefix.
type RedisOptions struct {
	// Prefix starts the names of the keys, DefaultPrefix if empty.
	Prefix string
}

// NewRedis returns a Store on client (a *redis.Client, *redis.ClusterClient or
// *redis.Ring) whose keys start with opts.Prefix.
func NewRedis(ctx context.Context, client redis.UniversalClient, opts RedisOptions) (*Redis, error) {
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
