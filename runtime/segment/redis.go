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
	c      redis.Cmdable
	prefix string
}

// NewRedis returns a Store on c (a Client, ClusterClient or Ring) whose keys start with
// prefix (DefaultPrefix if empty).
func NewRedis(c redis.Cmdable, prefix string) *Redis {
	if prefix == "" {
		prefix = DefaultPrefix
	}
	return &Redis{c: c, prefix: prefix}
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
