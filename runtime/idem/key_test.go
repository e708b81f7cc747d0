package idem

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/idgen/idgen/runtime/ledger"
)

// TestParseKey: the bare and the Structured Field form of a key, and what is refused.
func TestParseKey(t *testing.T) {
	for _, tc := range []struct {
		header, key string
		ok          bool
	}{
		{"abc", "abc", true},
		{`"abc"`, "abc", true},
		{`"a\"b\\c"`, `a"b\c`, true},
		{`a"b`, `a"b`, true}, // a bare token may hold a quote after its start
		{"k-a, k-b", "", false},
		{"k-a,k-b", "", false},
		{",", "", false},
		{`"k-a,k-b"`, "k-a,k-b", true},
		{`"k-a", "k-b"`, "", false},
		{`"abc`, "", false},
		{`""`, "", false},
		{`"a"b"`, "", false},
		{`"a\b"`, "", false},
		{"\"caf\u00e9\"", "", false},
		{"\"a\tb\"", "", false},
		{strings.Repeat("k", MaxKeyLen), strings.Repeat("k", MaxKeyLen), true},
		{strings.Repeat("k", MaxKeyLen+1), "", false},
	} {
		got, err := parseKey(tc.header)
		if (err == nil) != tc.ok || got != tc.key {
			t.Errorf("parseKey(%q) = %q, %v; want %q, ok=%v", tc.header, got, err, tc.key, tc.ok)
		}
	}
}

// FuzzKeyHeader: whatever the header, the middleware answers 400 exactly for the values
// parseKey refuses, and never fails otherwise.
func FuzzKeyHeader(f *testing.F) {
	for _, s := range []string{"", "k", "a\x00b", strings.Repeat("x", 300), "ключ", "a\tb", "\x7f"} {
		f.Add(s)
	}
	mw, _ := New(Config{Store: NewMemory(), Scope: SingleTenant})
	h := mw.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(201) }))
	f.Fuzz(func(t *testing.T, key string) {
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader("{}"))
		req.Header["Idempotency-Key"] = []string{key}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		switch {
		case key == "":
			if rec.Code != 201 {
				t.Fatalf("no key: %d", rec.Code)
			}
		case func() bool { _, err := parseKey(key); return err != nil }():
			if rec.Code != 400 {
				t.Fatalf("invalid key %q: %d", key, rec.Code)
			}
		default:
			if rec.Code != 201 {
				t.Fatalf("key %q: %d", key, rec.Code)
			}
		}
	})
}

func TestScopedKey(t *testing.T) {
	long := strings.Repeat("t", 1000)
	if k := ledger.ScopedKey(long, strings.Repeat("k", MaxKeyLen)); len(k) > 330 {
		t.Errorf("scoped key of %d bytes", len(k))
	}
	if ledger.ScopedKey("a:b", "c") == ledger.ScopedKey("a", "b:c") {
		t.Error("two scopes share a key")
	}
	if ledger.ScopedKey(long, "k") == ledger.ScopedKey(long+"x", "k") {
		t.Error("long scopes collide")
	}
}

// FuzzKeySpaces: no message key of Once is the key of any (scope, key) of the
// middleware, and distinct message keys stay distinct.
func FuzzKeySpaces(f *testing.F) {
	for _, s := range [][3]string{
		{"acme", "order-1", "4:acme:order-1"},
		{"", "k", "0::k"},
		{"once", "x", "once:x"},
		{"", "once:x", "x"},
		{strings.Repeat("t", 65), "k", "65:" + strings.Repeat("t", 65) + ":k"},
	} {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, scope, key, msg string) {
		if OnceKey(msg) == ledger.ScopedKey(scope, key) {
			t.Fatalf("Once key %q is the middleware's key of scope %q and key %q", msg, scope, key)
		}
		if OnceKey(msg) == OnceKey(key) && msg != key {
			t.Fatalf("message keys %q and %q share %q", msg, key, OnceKey(msg))
		}
	})
}
