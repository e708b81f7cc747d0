// Package idem makes whole requests idempotent: a key (an HTTP Idempotency-Key header, a
// message ID) moves from absent to in progress, claimed atomically, to completed, with the
// response kept for replay, or back to absent when the work fails, so a retry can run.
//
// A Store keeps the keys: SQLStore (PostgreSQL, MySQL/MariaDB, SQLite through
// database/sql), RedisStore and MemoryStore. Claims are atomic (one INSERT or one script,
// never check-then-set) and carry a token, so a holder whose claim timed out and passed to
// another caller can neither complete nor release the new claim.
//
// Middleware wraps a net/http handler the way payment APIs handle Idempotency-Key: keys
// scoped by caller, a fingerprint of the request so a key reused with another payload is
// refused (422), a duplicate while the first is in flight refused (409) or made to wait,
// a completed key replayed with Idempotent-Replayed: true, 5xx and panics releasing the
// key. Once does the same for queue consumers that see redeliveries.
package idem
