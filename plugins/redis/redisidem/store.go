package redisidem

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idgen/idgen/plugins/redis/internal/redisdurable"
	"github.com/idgen/idgen/runtime/idem"
	"github.com/idgen/idgen/runtime/millis"
)

// DefaultPrefix starts the names of the keys a [Store] uses when Options.Prefix is
// empty.
const DefaultPrefix = "idgen:idem:"

// RedisGrace is how long a Redis store's record stays in Redis after its time is over (the
// lock of an in-progress claim, the TTL of a completed one). Claim and Get treat such a
// record as absent from the moment its time is over; Redis deletes it RedisGrace later by
// itself, and Purge deletes it before that.
const RedisGrace = time.Minute

// Every script reads the time from Redis (TIME), so expiry is judged by one clock whatever
// the callers' clocks say. Times are Unix milliseconds. KEYS[1] is the record: a hash of
// fp (fingerprint), state (1 in progress, 2 completed), token, locked (end of the lock),
// exp (when its time is over: the end of the lock while in progress, of the TTL once
// completed), and once completed status, header (JSON, absent for a nil header) and body.
const luaNow = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`

// recordFields are the fields a script returns for a record, in the order parseRecord
// reads them.
const recordFields = `'fp', 'state', 'locked', 'exp', 'status', 'header', 'body'`

// claimLua: ARGV fingerprint, token, lock, grace. Returns 1 when it took the key, or the
// record that holds it. A record whose time is over is replaced whole, as if absent.
var claimLua = redis.NewScript(luaNow + `
local exp = redis.call('HGET', KEYS[1], 'exp')
if exp and tonumber(exp) > now then
	return redis.call('HMGET', KEYS[1], ` + recordFields + `)
end
local locked = now + tonumber(ARGV[3])
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'fp', ARGV[1], 'state', '1', 'token', ARGV[2],
	'locked', string.format('%d', locked), 'exp', string.format('%d', locked))
redis.call('PEXPIREAT', KEYS[1], string.format('%d', locked + tonumber(ARGV[4])))
return 1
`)

// completeLua: ARGV token, ttl, grace, status, body, and the header when there is one.
// Returns 1, or 0 when the token does not hold an in-progress claim of the key.
var completeLua = redis.NewScript(luaNow + `
local r = redis.call('HMGET', KEYS[1], 'token', 'state')
if r[1] ~= ARGV[1] or r[2] ~= '1' then
	return 0
end
local exp = now + tonumber(ARGV[2])
redis.call('HSET', KEYS[1], 'state', '2', 'exp', string.format('%d', exp), 'status', ARGV[4], 'body', ARGV[5])
if ARGV[6] then
	redis.call('HSET', KEYS[1], 'header', ARGV[6])
end
redis.call('PEXPIREAT', KEYS[1], string.format('%d', exp + tonumber(ARGV[3])))
return 1
`)

// releaseLua: ARGV token. Returns 1, or 0 when the token does not hold an in-progress
// claim of the key.
var releaseLua = redis.NewScript(`
local r = redis.call('HMGET', KEYS[1], 'token', 'state')
if r[1] ~= ARGV[1] or r[2] ~= '1' then
	return 0
end
redis.call('DEL', KEYS[1])
return 1
`)

// renewLua: ARGV token, lock, grace. Returns 1, or 0 when the token does not hold an
// in-progress claim of the key.
var renewLua = redis.NewScript(luaNow + `
local r = redis.call('HMGET', KEYS[1], 'token', 'state')
if r[1] ~= ARGV[1] or r[2] ~= '1' then
	return 0
end
local locked = now + tonumber(ARGV[2])
redis.call('HSET', KEYS[1], 'locked', string.format('%d', locked), 'exp', string.format('%d', locked))
redis.call('PEXPIREAT', KEYS[1], string.format('%d', locked + tonumber(ARGV[3])))
return 1
`)

// getLua returns the record, or nil when it is absent or its time is over.
var getLua = redis.NewScript(luaNow + `
local r = redis.call('HMGET', KEYS[1], ` + recordFields + `)
if not r[4] or tonumber(r[4]) <= now then
	return false
end
return r
`)

// purgeLua deletes the record if its time is over, returning 1, or 0. Keys under the
// prefix that are not records (not hashes with an exp field) are left alone.
var purgeLua = redis.NewScript(luaNow + `
if redis.call('TYPE', KEYS[1]).ok ~= 'hash' then
	return 0
end
local exp = redis.call('HGET', KEYS[1], 'exp')
if exp and tonumber(exp) <= now then
	redis.call('DEL', KEYS[1])
	return 1
end
return 0
`)

// Store is an [idem.Store] in Redis: one hash per key, named prefix+key ("{}" before a key
// with a brace, so that no caller's text is a hash tag), and every transition one Lua
// script, judged by Redis's clock. A claim takes the key only when it
// is absent or its time is over, and returns the holder otherwise, atomically; Complete
// and Release act only for the claim's token. Each record carries a PEXPIREAT at its time
// plus RedisGrace, so Redis removes records by itself and Purge is optional. Safe for
// concurrent use, by any number of processes.
//
// A record is only as durable as Redis: a Redis that restarts without its data, or a
// failover to a replica that missed the latest writes, forgets claims and responses, and
// a request may then run twice. Run it with persistence, and with maxmemory-policy
// noeviction, since every record has a TTL and any volatile-* policy may evict a live
// claim. New refuses a server without persistence unless told otherwise. On Redis
// Cluster each key is one slot, so records spread over the cluster, and a key's own
// braces never make a hash tag: the slot is the whole name's, or the prefix's tag.
type Store struct {
	client redis.UniversalClient
	prefix string
}

// Options configures a [Store]. The zero value uses DefaultPrefix and requires a server
// that persists its data.
type Options struct {
	// Prefix starts the names of the keys, DefaultPrefix if empty. Stores that share a
	// Redis must not share a prefix unless they share their keys.
	Prefix string
	// AllowNoPersistence skips the check New makes that the server keeps its data
	// across a restart (INFO persistence: aof_enabled:1 on the server, on every master of a
	// *redis.ClusterClient, on every shard of a *redis.Ring). Without it New refuses
	// a server with the AOF off, even with RDB snapshots (which lose the writes since the
	// last one), and a server that refuses INFO (managed services), with a
	// *NotPersistentError. Set it for a server you know persists by means the check cannot
	// see, or to accept what a server that forgets does: after a restart without its data
	// every completed key is forgotten, and a retry of any of them runs its request again.
	AllowNoPersistence bool
}

// NotPersistentError is returned by New for a server that may forget what it stores
// across a restart, or whose persistence cannot be checked: Addr names the server, Reason
// says what it reported, Err is the server's refusal of INFO when that is why, and the
// message says how to turn persistence on or opt out with Options.AllowNoPersistence.
// It matches ErrNotPersistent, and is the type redislease and redissegment return too.
type NotPersistentError = redisdurable.Error

// ErrNotPersistent is matched by every *NotPersistentError.
var ErrNotPersistent = redisdurable.ErrNotPersistent

// New returns a store on client (a *redis.Client, *redis.ClusterClient or *redis.Ring)
// whose keys start with opts.Prefix. Unless opts.AllowNoPersistence is set, it first asks the server (every master of a
// cluster, every shard of a ring) whether it persists its data, and fails with a
// *NotPersistentError if it may not, or with the client's error if the server cannot be
// reached. A nil client is an error.
func New(ctx context.Context, client redis.UniversalClient, opts Options) (*Store, error) {
	if err := redisdurable.Open(ctx, "redisidem", client, opts.AllowNoPersistence); err != nil {
		return nil, err
	}
	prefix := opts.Prefix
	if prefix == "" {
		prefix = DefaultPrefix
	}
	return &Store{client: client, prefix: prefix}, nil
}

// Claim implements idem.Store with one script.
func (s *Store) Claim(ctx context.Context, key, fingerprint string, lock time.Duration) (string, *idem.Record, error) {
	token := idem.NewToken()
	res, err := claimLua.Run(ctx, s.client, []string{s.name(key)}, fingerprint, token, millis.Duration(lock), RedisGrace.Milliseconds()).Result()
	if err != nil {
		return "", nil, fmt.Errorf("redisidem: claiming a key in Redis: %w", err)
	}
	if vals, ok := res.([]any); ok {
		rec, err := parseRecord(key, vals)
		if err != nil {
			return "", nil, fmt.Errorf("redisidem: claiming a key in Redis: %w", err)
		}
		return "", rec, nil
	}
	return token, nil, nil
}

// Complete implements idem.Store with one script.
func (s *Store) Complete(ctx context.Context, key, token string, resp idem.Response, ttl time.Duration) error {
	args := []any{token, millis.Duration(ttl), RedisGrace.Milliseconds(), resp.Status, resp.Body}
	if resp.Header != nil {
		b, err := json.Marshal(resp.Header)
		if err != nil {
			return fmt.Errorf("redisidem: encoding the response header: %w", err)
		}
		args = append(args, b)
	}
	return s.change(ctx, "completing", completeLua, key, args...)
}

// Release implements idem.Store with one script.
func (s *Store) Release(ctx context.Context, key, token string) error {
	return s.change(ctx, "releasing", releaseLua, key, token)
}

// Renew implements idem.Store with one script.
func (s *Store) Renew(ctx context.Context, key, token string, lock time.Duration) error {
	return s.change(ctx, "renewing", renewLua, key, token, millis.Duration(lock), RedisGrace.Milliseconds())
}

// change runs a script that answers 1 when the token held the key and 0 otherwise.
func (s *Store) change(ctx context.Context, doing string, script *redis.Script, key string, args ...any) error {
	n, err := script.Run(ctx, s.client, []string{s.name(key)}, args...).Int64()
	switch {
	case err != nil:
		return fmt.Errorf("redisidem: %s a key in Redis: %w", doing, err)
	case n == 0:
		return idem.ErrNotHolder
	}
	return nil
}

// Get implements idem.Store. Unlike idem.Memory and idem.SQL, it returns idem.ErrNotFound for a
// record whose time is over even before it is purged.
func (s *Store) Get(ctx context.Context, key string) (*idem.Record, error) {
	vals, err := getLua.Run(ctx, s.client, []string{s.name(key)}).Slice()
	if errors.Is(err, redis.Nil) {
		return nil, idem.ErrNotFound
	}
	if err == nil {
		var rec *idem.Record
		if rec, err = parseRecord(key, vals); err == nil {
			return rec, nil
		}
	}
	return nil, fmt.Errorf("redisidem: reading a key in Redis: %w", err)
}

// Purge implements idem.Store: it SCANs the keys under the prefix (on every master of a
// cluster) and deletes those whose time is over, one script each. It counts only records
// still in Redis: those Redis already deleted, RedisGrace after their time, are not
// counted, so it may return 0 having nothing left to do. The SCAN walks the whole
// keyspace, so on a large Redis run it rarely, or not at all. Keys under the prefix
// include those of a store whose prefix extends it ("a:" and "a:b:"); their records are
// judged the same way.
func (s *Store) Purge(ctx context.Context) (int, error) {
	var n atomic.Int64
	purge := func(ctx context.Context, c redis.Cmdable) error {
		if err := purgeLua.Load(ctx, c).Err(); err != nil {
			return err
		}
		iter := c.Scan(ctx, 0, globEscape(s.prefix)+"*", 1000).Iterator()
		var batch []string
		flush := func() error {
			cmds, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
				for _, k := range batch {
					purgeLua.EvalSha(ctx, p, []string{k})
				}
				return nil
			})
			if err != nil {
				return err
			}
			for _, cmd := range cmds {
				m, _ := cmd.(*redis.Cmd).Int64()
				n.Add(m)
			}
			batch = batch[:0]
			return nil
		}
		for iter.Next(ctx) {
			if batch = append(batch, iter.Val()); len(batch) == 1000 {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		if err := iter.Err(); err != nil {
			return err
		}
		if len(batch) > 0 {
			return flush()
		}
		return nil
	}
	each := func(ctx context.Context, c *redis.Client) error { return purge(ctx, c) }
	var err error
	switch c := s.client.(type) {
	case *redis.ClusterClient:
		err = c.ForEachMaster(ctx, each)
	case *redis.Ring:
		err = c.ForEachShard(ctx, each)
	default:
		err = purge(ctx, c)
	}
	if err != nil {
		return int(n.Load()), fmt.Errorf("redisidem: purging Redis: %w", err)
	}
	return int(n.Load()), nil
}

// parseRecord reads the fields a script returns in the order of recordFields.
func parseRecord(key string, vals []any) (*idem.Record, error) {
	if len(vals) != 7 {
		return nil, fmt.Errorf("record of %d fields, want 7", len(vals))
	}
	str := func(i int) string { s, _ := vals[i].(string); return s }
	num := func(i int) (int64, error) { return strconv.ParseInt(str(i), 10, 64) }
	state, err := num(1)
	if err != nil {
		return nil, fmt.Errorf("record state: %w", err)
	}
	locked, err := num(2)
	if err != nil {
		return nil, fmt.Errorf("record lock: %w", err)
	}
	rec := &idem.Record{Key: key, Fingerprint: str(0), State: idem.State(state), LockedUntil: fromMs(locked)}
	if rec.State != idem.Completed {
		return rec, nil
	}
	exp, err := num(3)
	if err != nil {
		return nil, fmt.Errorf("record expiry: %w", err)
	}
	status, err := num(4)
	if err != nil {
		return nil, fmt.Errorf("record status: %w", err)
	}
	rec.ExpiresAt = fromMs(exp)
	rec.Response = &idem.Response{Status: int(status)}
	if vals[5] != nil {
		var h http.Header
		if err := json.Unmarshal([]byte(str(5)), &h); err != nil {
			return nil, fmt.Errorf("record header: %w", err)
		}
		rec.Response.Header = h
	}
	if b := str(6); b != "" {
		rec.Response.Body = []byte(b)
	}
	return rec, nil
}

// globEscape escapes the characters SCAN's MATCH pattern gives a meaning.
func globEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`, `]`, `\]`).Replace(s)
}

func fromMs(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

// Prefix returns the prefix the store's keys start with (Options.Prefix, or DefaultPrefix).
func (s *Store) Prefix() string { return s.prefix }

// name returns the Redis key of the record of key: the prefix, then key. A key with a
// brace gets "{}" before it: Redis Cluster hashes a name by its first "{...}" when that
// holds something, so a client's key with {x} would choose its record's slot (all of a
// caller's records on one master); the first brace being "{}", empty, makes it hash the
// whole name instead. A hash tag in the prefix comes first and stays the store's. Names
// stay distinct (a name with a brace after the prefix starts with "{}" exactly when its
// key has a brace), and keys without braces have the names earlier versions gave them.
func (s *Store) name(key string) string {
	if strings.ContainsAny(key, "{}") {
		return s.prefix + "{}" + key
	}
	return s.prefix + key
}
