package ledger

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/idgen/idgen/runtime/internal/sqlerr"
	"github.com/idgen/idgen/runtime/internal/sqlstore"
	"github.com/idgen/idgen/runtime/millis"
	"github.com/idgen/idgen/runtime/sqldb"
)

// MaxScopeLen is the longest scope ScopedKey writes as it is; a longer one is written as
// its SHA-256, so a scoped key stays within what the stores index.
const MaxScopeLen = 64

// ScopedKey returns the key that a caller or consumer named scope records for key: the
// length of the scope in decimal, a colon, the scope, a colon, key ("6:orders:m1"). It is
// the one form of a scoped key in idgen: the idem middleware stores a request's key under
// it with the caller's scope, and the broker adapters record their messages under it with
// the queue, or the stream and consumer, as scope. Two (scope, key) pairs never give one
// string whatever bytes they hold, so a message done on one queue is never taken for done
// on another. A scope longer than MaxScopeLen bytes is replaced by "sha256-" and its
// SHA-256 in hex (71 bytes) before it is written. The result counts toward MaxKeyLen.
func ScopedKey(scope, key string) string {
	if len(scope) > MaxScopeLen {
		sum := sha256.Sum256([]byte(scope))
		scope = "sha256-" + hex.EncodeToString(sum[:])
	}
	return strconv.Itoa(len(scope)) + ":" + scope + ":" + key
}

// unscoped returns the key a scoped key (ScopedKey) was made from, and whether k has
// that form.
func unscoped(k string) (string, bool) {
	n, rest, ok := strings.Cut(k, ":")
	if !ok || n == "" || n[0] == '0' && n != "0" || n[0] == '+' || n[0] == '-' {
		return "", false
	}
	size, err := strconv.Atoi(n)
	if err != nil || len(rest) < size+1 || rest[size] != ':' {
		return "", false
	}
	return rest[size+1:], true
}

// Unavailable reports an error that says the database, or the connection to it, could
// not do the work now, rather than that the work is wrong, so that the same work run again
// once the database is back may succeed: every Transient error; a connection that broke
// or could not be made (driver.ErrBadConn, sql.ErrConnDone, net.ErrClosed, a *net.OpError
// such as a refused or reset connection, a net.Error that is a timeout, ECONNREFUSED,
// ECONNRESET, ECONNABORTED, EPIPE, ETIMEDOUT, io.EOF and io.ErrUnexpectedEOF, which pgx
// returns bare when the server closed the connection mid-statement, pgx's client-side
// connection errors, go-sql-driver/mysql's "invalid connection"); a context deadline
// (context.DeadlineExceeded: the store did not answer in time); and what a server says
// when it cannot serve: PostgreSQL's classes 08 (connection exception), 53 (insufficient
// resources) and 58 (system error) and 57P01, 57P02, 57P03, 57P05 (shutting down, crashed,
// starting up, idle session timeout); MySQL/MariaDB's 1040 (too many connections), 1053
// (server shutdown), 1152-1161 (aborted connection, network errors), 1927 (connection
// killed), and the client codes 2002, 2003, 2006, 2013, 2055; SQLite's I/O, disk-full and
// cannot-open errors. Like Transient it reads the drivers' errors without linking any
// driver. runtime/consume builds on it to tell a store outage, which pauses a consumer,
// from a message's failure, which counts toward its attempts; since a decoder's EOF on a
// short message looks the same, its Gate still counts a failure that keeps coming while
// the database serves other messages.
func Unavailable(err error) bool { return sqlerr.Unavailable(err) }

// Recorded reports whether key is recorded in l and within its TTL: its work committed.
// It reads and records nothing (with Options.ReadUnscoped, a scoped key's unscoped form
// counts too). A consumer asks it before it gives up on a message (dead-letters it), in
// case the work did commit and only the answer to the COMMIT was lost; q may be the
// *sql.DB itself.
func (l *Ledger) Recorded(ctx context.Context, q Queryer, key string) (bool, error) {
	if err := checkKey(key); err != nil {
		return false, err
	}
	keys := []string{key}
	if bare, ok := unscoped(key); ok && l.readUnscoped {
		keys = append(keys, bare)
	}
	live, err := l.liveKeys(ctx, q, keys, millis.After(l.now(), 0))
	if err != nil {
		return false, err
	}
	return len(live) > 0, nil
}

// liveKeys returns which of keys are in the table within their TTL, in one SELECT.
func (l *Ledger) liveKeys(ctx context.Context, q Queryer, keys []string, nowMs int64) (map[string]bool, error) {
	live := map[string]bool{}
	for len(keys) > 0 {
		n := min(len(keys), MaxBatch)
		var b strings.Builder
		col := "key"
		if l.dialect == sqldb.MySQL {
			col = "`key`"
		}
		b.WriteString("SELECT " + col + " FROM " + l.table + " WHERE expires_at > $1 AND " + col + " IN (")
		args := []any{nowMs}
		for i, k := range keys[:n] {
			if i > 0 {
				b.WriteString(", ")
			}
			args = append(args, []byte(k))
			b.WriteString("$" + strconv.Itoa(len(args)))
		}
		b.WriteString(")")
		stmt := sqlstore.Bind(l.dialect, b.String())
		rows, err := q.QueryContext(ctx, stmt.Query, stmt.Args(args...)...)
		if err != nil {
			return nil, fmt.Errorf("ledger: reading keys in %s: %w", l.table, err)
		}
		for rows.Next() {
			var k []byte
			if err := rows.Scan(&k); err != nil {
				rows.Close()
				return nil, fmt.Errorf("ledger: reading keys in %s: %w", l.table, err)
			}
			live[string(k)] = true
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("ledger: reading keys in %s: %w", l.table, err)
		}
		keys = keys[n:]
	}
	return live, nil
}

// doneUnscoped returns, under Options.ReadUnscoped, the scoped keys among keys whose
// unscoped form is recorded within its TTL (by a version that recorded bare message IDs):
// their work was done, and they are not recorded again. Without the option, or without
// scoped keys, it reads nothing.
func (l *Ledger) doneUnscoped(ctx context.Context, tx Execer, keys []string, nowMs int64) (map[string]bool, error) {
	if !l.readUnscoped {
		return nil, nil
	}
	bare := map[string][]string{} // unscoped key -> the scoped keys of it
	var list []string
	for _, k := range keys {
		if b, ok := unscoped(k); ok {
			if _, seen := bare[b]; !seen {
				list = append(list, b)
			}
			bare[b] = append(bare[b], k)
		}
	}
	if len(list) == 0 {
		return nil, nil
	}
	q, ok := tx.(Queryer)
	if !ok {
		return nil, fmt.Errorf("ledger: Options.ReadUnscoped reads keys, and the transaction of type %T cannot query", tx)
	}
	live, err := l.liveKeys(ctx, q, list, nowMs)
	if err != nil || len(live) == 0 {
		return nil, err
	}
	done := map[string]bool{}
	for b := range live {
		for _, k := range bare[b] {
			done[k] = true
		}
	}
	return done, nil
}
