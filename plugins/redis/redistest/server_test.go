package redistest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// TestStart: a private server answers, and after a SIGKILL and restart it has
// forgotten a key without persistence and kept it with the AOF on.
func TestStart(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		args []string
		kept bool
	}{
		{"no persistence", nil, false},
		{"appendonly", []string{"--appendonly", "yes"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Start(t, tc.args...)
			c := s.Client()
			if err := c.IncrBy(ctx, "k", 1000).Err(); err != nil {
				t.Fatal(err)
			}
			s.Restart()
			v, err := c.Get(ctx, "k").Int64()
			switch {
			case tc.kept && (err != nil || v != 1000):
				t.Errorf("after restart: %d, %v; want 1000", v, err)
			case !tc.kept && !errors.Is(err, redis.Nil):
				t.Errorf("after restart: %d, %v; want no key", v, err)
			}
		})
	}
}

// TestStartSkip: without redis-server on PATH and without the variable, the test is
// skipped with a message naming the variable.
func TestStartSkip(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	t.Setenv(Env, "")
	r := &recorder{TB: t}
	if s := Start(r); s != nil {
		t.Errorf("Start without redis-server = %+v", s)
	}
	if !strings.Contains(r.skipped, Env) {
		t.Errorf("skip message %q does not name %s", r.skipped, Env)
	}
}

// recorder observes the skip path: unlike testing.T's, its Skip returns instead of ending
// the goroutine, and it fails on anything else.
type recorder struct {
	testing.TB
	skipped string
}

func (r *recorder) Helper()          {}
func (r *recorder) Skip(args ...any) { r.skipped = fmt.Sprint(args...) }
