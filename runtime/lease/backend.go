package lease

import (
	"context"
	crand "crypto/rand"
	"math/rand/v2"
	"time"

	"github.com/idgen/idgen/runtime/millis"
	"github.com/idgen/idgen/runtime/snowflake"
)

// Backend stores worker-ID leases. Every method is one atomic step in the store, and times
// that decide expiry are read from the store's clock, so holders on different machines
// agree on when a lease ends. SQL (PostgreSQL, MySQL/MariaDB, SQLite) implements it here,
// Redis in the package plugins/redis/redislease, etcd in the module plugins/etcdlease
// (where expiry is etcd's own lease countdown, and the times recorded are the holders'); a
// Lease drives it.
//
// A store that keeps times in whole milliseconds rounds as package
// [github.com/idgen/idgen/runtime/millis] does: a recorded tick (last) rounds up, so the
// next holder's floor is never below it, and a TTL rounds up, so a lease is never shorter
// than asked. The conformance suite in package leasetest (RunBackend) checks a Backend
// against this contract.
type Backend interface {
	// Acquire claims, for ttl and under token, the lowest worker ID in [0, max] that no
	// live lease holds: one never leased, released, or expired. It fails with an
	// *AllTakenError when every one is held.
	Acquire(ctx context.Context, max int64, token string, ttl time.Duration) (Claim, error)
	// Renew extends the lease token holds on worker to ttl from now and records last, the
	// latest tick issued under it. It fails with a *LostError unless token holds worker
	// and the lease has not expired.
	Renew(ctx context.Context, worker int64, token string, ttl time.Duration, last time.Time) error
	// Release records last and ends the lease token holds on worker now, so the ID is free
	// at once. It fails with a *LostError if another holder has claimed worker.
	Release(ctx context.Context, worker int64, token string, last time.Time) error
}

// RangeBackend is a Backend that also claims within a range of worker IDs not starting at
// 0, for Config.MinWorker. Every bundled backend is one: SQL here, Redis
// (plugins/redis/redislease) and etcd (plugins/etcdlease).
type RangeBackend interface {
	Backend
	// AcquireRange is Acquire within [min, max].
	AcquireRange(ctx context.Context, min, max int64, token string, ttl time.Duration) (Claim, error)
}

// Claim is what Backend.Acquire returns: the worker ID claimed and what the store knows of
// its previous holders, from which a new generator's start is computed.
type Claim struct {
	// Worker is the worker ID claimed.
	Worker int64
	// Last is the latest tick any earlier holder recorded (on renewal or release), or the
	// zero time if none did.
	Last time.Time
	// Prev is when the previous lease on Worker ended (expired or was released), in the
	// store's clock, or the zero time if it was never leased.
	Prev time.Time
	// Fresh says the store had no record of Worker: it was never leased, or the store lost
	// its record (a Redis restarted without persistence, a table dropped). Last and Prev
	// are then zero and prove nothing: a previous holder may still be issuing under
	// Worker until its own gate closes, so a Lease issues nothing until one TTL plus its
	// drift plus Config.Skew after the claim.
	Fresh bool
	// Expires is when the new lease ends unless renewed, in the store's clock: the time of
	// the claim plus the TTL. Every backend should set it: the zero time makes a Lease use
	// its own clock at the end of the claim, which a host running behind the store
	// shortens a fresh claim's wait by (Skew covers hosts running ahead only).
	Expires time.Time
}

// NewToken returns a random holder token: 26 characters of base32, 128 bits.
func NewToken() string { return crand.Text() }

// The SQL store keeps times as Unix milliseconds, rounded as package millis says.
var (
	toMs   = millis.Of
	fromMs = millis.Time
	ttlMs  = millis.Duration
)

// pause sleeps for a random 1 to 4 ms, or until ctx is done, between attempts that lost a
// race to another holder, so that racing holders spread out.
func pause(ctx context.Context) error {
	return snowflake.SystemClock().Sleep(ctx, time.Millisecond+rand.N(3*time.Millisecond))
}
