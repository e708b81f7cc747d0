package ledger

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/idgen/idgen/runtime/internal/sqlstore"
	"github.com/idgen/idgen/runtime/sqldb"
)

// TestNewLedger: the schema of each dialect, qualified tables, unknown dialects, and the
// table rule runtime/idem, runtime/lease and runtime/segment share, on the names they
// test. New touches no database, so this needs none.
func TestNewLedger(t *testing.T) {
	for _, tc := range []struct {
		dialect sqldb.Dialect
		table   string
		n       int      // statements
		frags   []string // fragments of the statements, in order
	}{
		{sqldb.Postgres, "", 2, []string{"TABLE IF NOT EXISTS idgen_done (\n\tkey        bytea", "INDEX IF NOT EXISTS idgen_done_expires_at ON idgen_done (expires_at)"}},
		{sqldb.Postgres, "app.done", 2, []string{"TABLE IF NOT EXISTS app.done (", "INDEX IF NOT EXISTS done_expires_at ON app.done "}},
		{sqldb.MySQL, "", 1, []string{"TABLE IF NOT EXISTS idgen_done (\n\t`key`      VARBINARY(512)"}},
		{sqldb.MySQL, "app.done", 1, []string{"TABLE IF NOT EXISTS app.done (", "INDEX done_expires_at (expires_at)\n) ENGINE=InnoDB"}},
		{sqldb.SQLite, "main.done", 2, []string{"TABLE IF NOT EXISTS main.done (", "INDEX IF NOT EXISTS main.done_expires_at ON done "}},
	} {
		l, err := New(tc.dialect, Options{Table: tc.table})
		if err != nil {
			t.Fatal(err)
		}
		got := l.Schema()
		all := strings.Join(got, ";\n")
		if len(got) != tc.n {
			t.Errorf("%s %q: %d statements, want %d:\n%s", tc.dialect, tc.table, len(got), tc.n, all)
		}
		rest := all
		for _, frag := range tc.frags {
			i := strings.Index(rest, frag)
			if i < 0 {
				t.Errorf("%s %q: the schema lacks %q where expected:\n%s", tc.dialect, tc.table, frag, all)
				break
			}
			rest = rest[i+len(frag):]
		}
	}
	for _, d := range []sqldb.Dialect{sqldb.Dialect(9), 0} {
		if _, err := New(d, Options{}); !errors.Is(err, sqldb.ErrUnknownDialect) || !strings.HasPrefix(err.Error(), "ledger: ") {
			t.Errorf("New(%v): %v, want ErrUnknownDialect", d, err)
		}
	}
	for _, d := range []sqldb.Dialect{sqldb.Postgres, sqldb.MySQL, sqldb.SQLite} {
		for _, name := range sqlstore.HostileTables() {
			if name == "" {
				continue // Options' zero value: DefaultTable
			}
			_, err := New(d, Options{Table: name})
			var te *sqldb.TableError
			if !errors.As(err, &te) || !errors.Is(err, sqldb.ErrInvalidTable) || !strings.HasPrefix(err.Error(), "ledger: invalid table name ") {
				t.Errorf("New(%v, %q): %v, want a *TableError", d, name, err)
			}
		}
		for _, name := range sqlstore.GoodTables() {
			if _, err := New(d, Options{Table: name}); err != nil {
				t.Errorf("New(%v, %q): %v", d, name, err)
			}
		}
	}
}

// TestKeyTooLong: a key over MaxKeyLen is refused before any statement (the transaction
// is nil here), alone and in a batch.
func TestKeyTooLong(t *testing.T) {
	ctx := context.Background()
	long := strings.Repeat("k", MaxKeyLen+1)
	for _, d := range []sqldb.Dialect{sqldb.Postgres, sqldb.MySQL, sqldb.SQLite} {
		l, err := New(d, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var tooLong *KeyTooLongError
		if _, err := l.Record(ctx, nil, long); !errors.As(err, &tooLong) || tooLong.Len != MaxKeyLen+1 || tooLong.Max != MaxKeyLen || !strings.HasPrefix(err.Error(), "ledger: ") {
			t.Errorf("%v: Record of %d bytes: %v", d, len(long), err)
		}
		if _, err := l.RecordBatch(ctx, nil, []string{"a", long}); !errors.As(err, &tooLong) {
			t.Errorf("%v: RecordBatch with a key of %d bytes: %v", d, len(long), err)
		}
	}
}

// TestBatchKeys: a batch's keys are recorded once each, in sorted order (so overlapping
// batches lock them in one order), each at its first place.
func TestBatchKeys(t *testing.T) {
	at, uniq, err := batchKeys([]string{"c", "a", "b", "a", "c"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(uniq, []string{"a", "b", "c"}) || at["a"] != 1 || at["b"] != 2 || at["c"] != 0 {
		t.Errorf("batchKeys: %v %v", uniq, at)
	}
}

// TestScopedKey: scoped keys read back to their unscoped key whatever bytes the scope and
// key hold, two (scope, key) pairs never give one scoped key, and keys not of the form are
// not taken for scoped ones.
func TestScopedKey(t *testing.T) {
	seen := map[string][2]string{}
	for _, scope := range []string{"", "rabbitmq:orders", "6:x:", "a:b", "jetstream:ORDERS.workers", "ü"} {
		for _, key := range []string{"", "m1", ":", "1:a:b", "6:orders:m1"} {
			k := ScopedKey(scope, key)
			if prev, ok := seen[k]; ok {
				t.Errorf("ScopedKey(%q, %q) = ScopedKey(%q, %q) = %q", scope, key, prev[0], prev[1], k)
			}
			seen[k] = [2]string{scope, key}
			if got, ok := unscoped(k); !ok || got != key {
				t.Errorf("unscoped(%q) = %q, %v; want %q", k, got, ok, key)
			}
		}
	}
	if got := ScopedKey("rabbitmq:orders", "m1"); got != "15:rabbitmq:orders:m1" {
		t.Errorf("ScopedKey = %q", got)
	}
	// A scope over MaxScopeLen is written as its hash: the key stays short, reads back,
	// and two long scopes stay apart; one of MaxScopeLen bytes is written as it is.
	long := strings.Repeat("t", 1000)
	for _, tc := range []struct {
		scope string
		want  string
	}{
		{strings.Repeat("s", MaxScopeLen), "64:" + strings.Repeat("s", MaxScopeLen) + ":k"},
		{long, "71:sha256-"},
	} {
		k := ScopedKey(tc.scope, "k")
		if !strings.HasPrefix(k, tc.want) || len(k) > 3+71+1+1 {
			t.Errorf("ScopedKey(%d bytes, k) = %q, want it to start with %q", len(tc.scope), k, tc.want)
		}
		if got, ok := unscoped(k); !ok || got != "k" {
			t.Errorf("unscoped(%q) = %q, %v", k, got, ok)
		}
	}
	if ScopedKey(long, "k") == ScopedKey(long+"x", "k") {
		t.Error("two long scopes give one key")
	}
	for _, k := range []string{"", "m1", "order-42", "x:y", "5:abc:d", "3:abcd", "03:abc:d", "+3:abc:d", "-0::x", "99999999999999999999:a:b"} {
		if got, ok := unscoped(k); ok {
			t.Errorf("unscoped(%q) = %q, true; want not scoped", k, got)
		}
	}
}
