package redistest

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// TestShared: the prefix is the test's own, and its keys are gone when the test ends.
func TestShared(t *testing.T) {
	if os.Getenv(Env) == "" {
		t.Skip("set " + Env + " to run against Redis")
	}
	ctx := context.Background()
	var url, prefix string
	t.Run("user", func(t *testing.T) {
		url, prefix = Shared(t, "redistest")
		if !regexp.MustCompile(`^idgen_test:redistest:\d+:[a-z2-7]{8}:$`).MatchString(prefix) {
			t.Errorf("prefix %q", prefix)
		}
		if _, other := Shared(t, "redistest"); other == prefix {
			t.Errorf("two calls gave one prefix %q", prefix)
		}
		opts, err := redis.ParseURL(url)
		if err != nil {
			t.Fatal(err)
		}
		c := redis.NewClient(opts)
		defer c.Close()
		for _, k := range []string{"a", "b:c"} {
			if err := c.Set(ctx, prefix+k, 1, 0).Err(); err != nil {
				t.Fatal(err)
			}
		}
	})
	opts, _ := redis.ParseURL(url)
	c := redis.NewClient(opts)
	defer c.Close()
	if keys, err := c.Keys(ctx, prefix+"*").Result(); err != nil || len(keys) != 0 {
		t.Errorf("after the test: keys %q, %v; want none", keys, err)
	}
}

// TestSharedCluster: the keys under the prefix and under the prefix in a hash tag are
// gone from every master when the test ends.
func TestSharedCluster(t *testing.T) {
	if os.Getenv(ClusterEnv) == "" {
		t.Skip("set " + ClusterEnv + " to run against a Redis Cluster")
	}
	ctx := context.Background()
	var addrs []string
	var prefix string
	t.Run("user", func(t *testing.T) {
		addrs, prefix = SharedCluster(t, "redistest")
		c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs})
		defer c.Close()
		for _, k := range []string{prefix + "a", prefix + "b", prefix + "c", "{" + prefix + "}:d"} {
			if err := c.Set(ctx, k, 1, 0).Err(); err != nil {
				t.Fatal(err)
			}
		}
	})
	c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs})
	defer c.Close()
	err := c.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
		for _, pat := range []string{prefix + "*", "{" + prefix + "*"} {
			if keys, err := m.Keys(ctx, pat).Result(); err != nil || len(keys) != 0 {
				t.Errorf("after the test, on %s: keys %q, %v; want none", m.Options().Addr, keys, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestSharedSkip: without the variables, the test is skipped with a message naming them.
func TestSharedSkip(t *testing.T) {
	t.Setenv(Env, "")
	t.Setenv(ClusterEnv, "")
	r := &recorder{TB: t}
	if url, _ := Shared(r, "x"); url != "" || !strings.Contains(r.skipped, Env) {
		t.Errorf("Shared without %s: %q, skip message %q", Env, url, r.skipped)
	}
	r = &recorder{TB: t}
	if addrs, _ := SharedCluster(r, "x"); addrs != nil || !strings.Contains(r.skipped, ClusterEnv) {
		t.Errorf("SharedCluster without %s: %q, skip message %q", ClusterEnv, addrs, r.skipped)
	}
}

func TestValidName(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"lease", true},
		{"seg_2", true},
		{strings.Repeat("a", 63), true},
		{"", false},
		{strings.Repeat("a", 64), false},
		{"Lease", false},
		{"a*", false},
		{"{a}", false},
		{"a:b", false},
	} {
		if err := validName(tc.name); (err == nil) != tc.ok {
			t.Errorf("validName(%q) = %v, want ok %v", tc.name, err, tc.ok)
		}
	}
}
