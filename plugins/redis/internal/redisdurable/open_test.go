package redisdurable_test

import (
	"context"
	"testing"

	"github.com/idgen/idgen/plugins/redis/redisidem"
	"github.com/idgen/idgen/plugins/redis/redislease"
	"github.com/idgen/idgen/plugins/redis/redissegment"
)

// TestNewNilClient: the three Redis stores refuse a nil client with one message, their
// package's name aside, whatever the options.
func TestNewNilClient(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		pkg string
		new func(bool) error
	}{
		{"redisidem", func(allow bool) error {
			_, err := redisidem.New(ctx, nil, redisidem.Options{AllowNoPersistence: allow})
			return err
		}},
		{"redislease", func(allow bool) error {
			_, err := redislease.New(ctx, nil, redislease.Options{AllowNoPersistence: allow})
			return err
		}},
		{"redissegment", func(allow bool) error {
			_, err := redissegment.New(ctx, nil, redissegment.Options{AllowNoPersistence: allow})
			return err
		}},
	} {
		want := tc.pkg + ": New needs a client (a *redis.Client, *redis.ClusterClient or *redis.Ring), got nil"
		for _, allow := range []bool{false, true} {
			if err := tc.new(allow); err == nil || err.Error() != want {
				t.Errorf("%s.New(nil, AllowNoPersistence: %v) = %v, want %q", tc.pkg, allow, err, want)
			}
		}
	}
}
