package redisidem

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/idgen/idgen/plugins/redis/redistest"
	"github.com/idgen/idgen/runtime/idem"
)

// TestRedisPersistence: against servers the test starts, New refuses one without
// persistence (and with RDB snapshots only) with a *NotPersistentError naming the opt-in,
// works with the opt-in, and works against an AOF server, whose completed keys survive a
// restart.
func TestRedisPersistence(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		args []string
		ok   bool
	}{
		{"none", nil, false},
		{"rdb only", []string{"--save", "3600 1"}, false},
		{"aof", []string{"--appendonly", "yes", "--appendfsync", "always"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := redistest.Start(t, tc.args...)
			c := srv.Client()
			_, err := New(ctx, c, Options{})
			var npe *NotPersistentError
			if tc.ok != (err == nil) || !tc.ok && (!errors.As(err, &npe) || !errors.Is(err, ErrNotPersistent) || !strings.Contains(err.Error(), "AllowNoPersistence") || !strings.HasPrefix(err.Error(), "redisidem: redis ")) {
				t.Fatalf("New: %v", err)
			}
			s, err := New(ctx, c, Options{AllowNoPersistence: !tc.ok})
			if err != nil {
				t.Fatal(err)
			}
			tok, _, err := s.Claim(ctx, "k", "fp", time.Minute)
			if err == nil {
				err = s.Complete(ctx, "k", tok, idem.Response{Status: 201, Body: []byte("done")}, time.Hour)
			}
			if err != nil {
				t.Fatal(err)
			}
			srv.Restart()
			rec, err := s.Get(ctx, "k")
			if tc.ok && (err != nil || rec.State != idem.Completed || string(rec.Response.Body) != "done") {
				t.Errorf("after a restart with AOF: %+v %v", rec, err)
			}
			if !tc.ok && !errors.Is(err, idem.ErrNotFound) {
				t.Errorf("after a restart without persistence the key is %+v %v; the test expected it gone", rec, err)
			}
		})
	}
}

func TestGlobEscape(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"idgen:idem:", "idgen:idem:"},
		{"{idem}:", "{idem}:"},
		{`a*b?c[d]e\f`, `a\*b\?c\[d\]e\\f`},
	} {
		if got := globEscape(tc.in); got != tc.want {
			t.Errorf("globEscape(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestNewNilClient(t *testing.T) {
	if _, err := New(context.Background(), nil, Options{AllowNoPersistence: true}); err == nil {
		t.Fatal("New accepted a nil client")
	}
}
