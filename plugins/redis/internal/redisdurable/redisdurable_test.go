package redisdurable

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/idgen/idgen/plugins/redis/redistest"
)

// TestCheck runs Check against servers the test starts, one per configuration.
func TestCheck(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		args   []string
		reason string // "" for durable
	}{
		{"nothing", nil, "no RDB save points"},
		{"rdb only", []string{"--save", "3600 1"}, `RDB snapshots (save "3600 1")`},
		{"aof", []string{"--appendonly", "yes"}, ""},
		{"aof and rdb", []string{"--appendonly", "yes", "--save", "60 1"}, ""},
		{"info renamed", []string{"--rename-command", "INFO", ""}, "refused INFO"},
		{"config renamed", []string{"--rename-command", "CONFIG", ""}, "appendonly is off (RDB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := redistest.Start(t, tc.args...)
			err := Check(ctx, srv.Client())
			checkErr(t, err, srv.Addr, tc.reason)
		})
	}
}

// checkErr says err is nil when reason is "", and otherwise an *Error naming addr whose
// reason contains reason and whose message says how to opt in.
func checkErr(t *testing.T, err error, addr, reason string) {
	t.Helper()
	if reason == "" {
		if err != nil {
			t.Errorf("durable server: %v", err)
		}
		return
	}
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, ErrNotPersistent) {
		t.Fatalf("got %v, want an *Error", err)
	}
	if e.Addr != addr || !strings.Contains(e.Reason, reason) {
		t.Errorf("Addr %q, Reason %q; want %q and a reason with %q", e.Addr, e.Reason, addr, reason)
	}
	if msg := err.Error(); !strings.HasPrefix(msg, "redis "+addr) || !strings.Contains(msg, "AllowNoPersistence") {
		t.Errorf("message %q does not say how to opt in or turn persistence on", msg)
	}
	t.Logf("%v", err)
}

// TestCheckNoPerm: a user whose ACL forbids INFO (as managed services do) gets an *Error
// that wraps the server's NOPERM and says to opt in.
func TestCheckNoPerm(t *testing.T) {
	ctx := context.Background()
	srv := redistest.Start(t, "--appendonly", "yes")
	admin := srv.Client()
	if err := admin.Do(ctx, "ACL", "SETUSER", "app", "on", ">secret", "~*", "+@all", "-info").Err(); err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(&redis.Options{Addr: srv.Addr, Username: "app", Password: "secret"})
	defer c.Close()
	err := Check(ctx, c)
	checkErr(t, err, srv.Addr, "refused INFO")
	if !strings.Contains(err.Error(), "NOPERM") {
		t.Errorf("%v: want the server's NOPERM", err)
	}
}

// TestCheckRing: every shard of a Ring is checked; the one without persistence is named.
func TestCheckRing(t *testing.T) {
	ctx := context.Background()
	good := redistest.Start(t, "--appendonly", "yes")
	bad := redistest.Start(t)
	ring := redis.NewRing(&redis.RingOptions{Addrs: map[string]string{"good": good.Addr, "bad": bad.Addr}})
	defer ring.Close()
	checkErr(t, Check(ctx, ring), bad.Addr, "no RDB save points")

	both := redis.NewRing(&redis.RingOptions{Addrs: map[string]string{"a": good.Addr, "b": redistest.Start(t, "--appendonly", "yes").Addr}})
	defer both.Close()
	checkErr(t, Check(ctx, both), "", "")
}

// TestCheckUnreachable: a server that does not answer is an ordinary error, not an *Error:
// nothing was learned about its persistence.
func TestCheckUnreachable(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1})
	defer c.Close()
	err := Check(context.Background(), c)
	if err == nil || errors.Is(err, ErrNotPersistent) {
		t.Errorf("unreachable: %v", err)
	}
}

func TestParseInfo(t *testing.T) {
	m := parseInfo("# Persistence\r\nloading:0\r\naof_enabled:1\r\n\r\nrdb_last_bgsave_status:ok\r\n")
	if m["aof_enabled"] != "1" || m["loading"] != "0" || m["rdb_last_bgsave_status"] != "ok" || len(m) != 3 {
		t.Errorf("parseInfo: %v", m)
	}
}

// TestCheckCluster: every master of a cluster is checked; one without the AOF, even if the
// client's seed address is a node with it, is named.
func TestCheckCluster(t *testing.T) {
	ctx := context.Background()
	nodes := redistest.StartCluster(t, 3, "--appendonly", "yes")
	c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{nodes[0].Addr}})
	defer c.Close()
	checkErr(t, Check(ctx, c), "", "")

	if err := nodes[2].Client().ConfigSet(ctx, "appendonly", "no").Err(); err != nil {
		t.Fatal(err)
	}
	checkErr(t, Check(ctx, c), nodes[2].Addr, "no RDB save points")
}
