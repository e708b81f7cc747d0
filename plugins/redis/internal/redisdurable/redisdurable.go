// Package redisdurable tells whether a Redis server keeps what it is told across a
// restart, for the Redis stores of idgen (runtime/lease, runtime/segment, runtime/idem),
// which repeat IDs or forget completed requests on a server that does not.
//
// # The rule
//
// A server is durable when INFO persistence says aof_enabled:1: every write is appended to
// the AOF before its reply is sent, so a killed or restarted server replays it (with
// appendfsync everysec, the default, a crash of the machine, not of Redis, may lose the
// last second; appendfsync always loses nothing). RDB snapshots alone (save points, and
// no AOF) are not enough: a crash or a kill loses every write since the last snapshot, up
// to an hour under Redis's default save points, and a store whose counter goes back hands
// out IDs again. No save points and no AOF loses everything on a restart.
//
// A server that refuses INFO (managed services that rename or forbid it: "ERR unknown
// command", NOPERM) cannot be checked and is refused too, with an error saying so. On a
// *redis.ClusterClient every master is checked, on a *redis.Ring every shard.
//
// Replicas and failover are outside the check: a replica promoted before it received the
// latest writes forgets them even when every server has the AOF on.
package redisdurable

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/redis/go-redis/v9"
)

// ErrNotPersistent is matched by every *Error.
var ErrNotPersistent = errors.New("redis does not persist its data")

// Error reports a Redis server that would forget writes on a restart, or one that could
// not be checked. It matches ErrNotPersistent.
type Error struct {
	// Addr is the server's address: the master found wanting, on a cluster.
	Addr string
	// Reason says what the server reported: "appendonly is off and RDB snapshots (save
	// \"3600 1\") lose the writes since the last one", or why it could not be checked.
	Reason string
	// Err is the server's refusal of INFO (NOPERM, unknown command), when that is why; nil
	// otherwise.
	Err error
}

// Error implements error.
func (e *Error) Error() string {
	addr := e.Addr
	if addr == "" {
		addr = "server"
	}
	s := fmt.Sprintf("redis %s may forget what it stores across a restart: %s", addr, e.Reason)
	if e.Err != nil {
		// A managed service: persistence is its configuration, not the client's.
		return s + ": " + e.Err.Error() + "; if the service keeps an append-only file (AOF), " +
			"set AllowNoPersistence in the store's options to skip the check"
	}
	return s + "; turn on appendonly (CONFIG SET appendonly yes, and appendonly yes in redis.conf), " +
		"or set AllowNoPersistence in the store's options to accept that IDs may repeat and keys be forgotten after a restart"
}

// Is reports whether target is ErrNotPersistent.
func (e *Error) Is(target error) bool { return target == ErrNotPersistent }

// Unwrap returns e.Err.
func (e *Error) Unwrap() error { return e.Err }

// Check returns nil if the server behind c is durable by the package's rule (every master
// of a *redis.ClusterClient, every shard of a *redis.Ring), an *Error if it is not or
// refuses INFO, and another error if it cannot be reached.
func Check(ctx context.Context, c redis.UniversalClient) error {
	var each func(context.Context, func(context.Context, *redis.Client) error) error
	switch cc := c.(type) {
	case *redis.ClusterClient:
		each = cc.ForEachMaster
	case *redis.Ring:
		each = cc.ForEachShard
	case *redis.Client:
		return checkOne(ctx, cc, cc.Options().Addr)
	default:
		return checkOne(ctx, c, "")
	}
	// ForEachMaster and ForEachShard run fn concurrently and return one of its errors; keep
	// the first *Error, so the message names a server wanting.
	var mu sync.Mutex
	var first *Error
	err := each(ctx, func(ctx context.Context, one *redis.Client) error {
		err := checkOne(ctx, one, one.Options().Addr)
		var e *Error
		if errors.As(err, &e) {
			mu.Lock()
			if first == nil {
				first = e
			}
			mu.Unlock()
		}
		return err
	})
	if first != nil {
		return first
	}
	return err
}

// checkOne checks one server.
func checkOne(ctx context.Context, c redis.Cmdable, addr string) error {
	info, err := c.Info(ctx, "persistence").Result()
	if err != nil {
		var re redis.Error
		if errors.As(err, &re) {
			return &Error{Addr: addr, Reason: "it refused INFO persistence, so persistence cannot be checked", Err: err}
		}
		return fmt.Errorf("checking the persistence of redis %s: %w", addr, err)
	}
	fields := parseInfo(info)
	switch fields["aof_enabled"] {
	case "1":
		return nil
	case "":
		return &Error{Addr: addr, Reason: "INFO persistence has no aof_enabled field"}
	}
	// No AOF. Name the RDB save points if CONFIG GET may be read, to say what is lost.
	save, err := c.ConfigGet(ctx, "save").Result()
	switch {
	case err != nil:
		return &Error{Addr: addr, Reason: "appendonly is off (RDB snapshots, if any, lose the writes since the last one)"}
	case strings.TrimSpace(save["save"]) == "":
		return &Error{Addr: addr, Reason: "appendonly is off and there are no RDB save points, so a restart loses every key"}
	}
	return &Error{Addr: addr, Reason: fmt.Sprintf("appendonly is off, and RDB snapshots (save %q) lose the writes since the last one", save["save"])}
}

// parseInfo reads the "name:value" lines of an INFO reply.
func parseInfo(info string) map[string]string {
	m := map[string]string{}
	for line := range strings.Lines(info) {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		if k, v, ok := strings.Cut(line, ":"); ok {
			m[k] = v
		}
	}
	return m
}

// Open is the start of every Redis store's New, so the three say the same: it refuses a
// nil client, then, unless allowNoPersistence, checks c (Check). Errors start with pkg,
// the constructor's package.
func Open(ctx context.Context, pkg string, c redis.UniversalClient, allowNoPersistence bool) error {
	if c == nil {
		return fmt.Errorf("%s: New needs a client (a *redis.Client, *redis.ClusterClient or *redis.Ring), got nil", pkg)
	}
	if allowNoPersistence {
		return nil
	}
	if err := Check(ctx, c); err != nil {
		return fmt.Errorf("%s: %w", pkg, err)
	}
	return nil
}
