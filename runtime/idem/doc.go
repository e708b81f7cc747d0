// Package idem makes whole requests idempotent: a key (an HTTP Idempotency-Key header, a
// message ID) moves from absent to in progress, claimed atomically and renewed while the
// work runs, to completed, with the response kept for replay, or back to absent when the
// work fails, so a retry can run.
//
// A Store keeps the keys: SQL (PostgreSQL, MySQL/MariaDB, SQLite through database/sql) and
// Memory, made by NewSQL and NewMemory, and Redis in package redisidem (redisidem.New, in
// the plugins/redis module), so that programs that do not use Redis do not link its
// client. Claims are atomic (one INSERT or one script, never check-then-set) and carry a
// token, so a holder whose claim passed to another caller can neither renew, complete nor
// release the new claim.
//
// Middleware wraps a net/http handler the way payment APIs handle Idempotency-Key: keys
// scoped by caller (Config.Scope is required), a fingerprint of the request so a key
// reused with another payload is refused (422), a duplicate while the first is in flight
// refused (409) or made to wait, a completed key replayed with Idempotent-Replayed: true,
// 5xx and panics releasing the key. While the handler runs its claim is renewed, and if
// the claim is lost the handler's context is cancelled, so two executions never overlap.
// Responses too large to keep stream through and complete the key without their body:
// they never run the work again. Once does the same for queue consumers that see
// redeliveries, under keys of its own (OnceKey), so one Store serves both and a message ID
// never meets a request's key. Consumers whose effects are rows in one SQL database need no
// claim: package runtime/ledger records their keys in the work's own transaction.
package idem
