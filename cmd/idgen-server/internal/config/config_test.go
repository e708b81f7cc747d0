package config

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const good = `listen: 127.0.0.1:7070
stores:
  local: {type: sqlite}
snowflake:
  layout: classic
  lease: {store: local}
tags:
  - name: id
    kind: snowflake
  - name: order
    kind: segment
    store: local
`

func TestDefault(t *testing.T) {
	c, err := Parse("default", Default())
	if err != nil {
		t.Fatal(err)
	}
	if c.Listen != "127.0.0.1:7070" || len(c.Tags) == 0 || c.Limits.MaxCount != DefaultMaxCount {
		t.Fatalf("%+v", c)
	}
}

// TestBadField: every refusal names the file, the line and the field.
func TestBadField(t *testing.T) {
	cases := []struct{ name, yaml, want string }{
		{"unknown kind", strings.Replace(good, "kind: snowflake", "kind: snowflak", 1),
			`config: x.yaml:9: tags[0].kind: unknown kind "snowflak"`},
		{"unknown field", strings.Replace(good, "layout: classic", "layout: classic\n  leas: {}", 1),
			`config: x.yaml:6: field leas not found`},
		{"segment store missing", strings.Replace(good, "store: local\n", "store: nowhere\n", 1),
			`config: x.yaml:12: tags[1].store: no store named "nowhere"`},
		{"bad layout", strings.Replace(good, "layout: classic", "layout: twitterish", 1),
			`config: x.yaml:5: snowflake.layout: unknown layout "twitterish" (want classic, classic-dc, sonyflake, jsonsafe, leaf, twitter, bwmarrin, sonyflake-v1, sonyflake-v2, uid-generator, or fields`},
		{"layout fields", strings.Replace(good, "layout: classic", "layout: {epoch: 1288834974657, unit: 1ms, bits: 41/10}", 1),
			`config: x.yaml:5: snowflake.layout: layout "epoch=1288834974657,unit=1ms,bits=41/10": bits "41/10": want time/worker/sequence, as 41/10/12`},
		{"layout bits", strings.Replace(good, "layout: classic", "layout: {preset: leaf, bits: 41/10/11}", 1),
			`config: x.yaml:5: snowflake.layout: invalid layout: TimeBits+WorkerBits+SeqBits 41+10+11 = 62 bits, want 63`},
		{"negative floor", strings.Replace(good, "layout: classic", "layout: classic\n  floor: -5", 1),
			`config: x.yaml:6: snowflake.floor: -5 is negative`},
		{"floor not a number", strings.Replace(good, "layout: classic", "layout: classic\n  floor: lots", 1),
			`config: x.yaml:6: floor "lots": want the highest ID issued`},
		{"floor query without store", strings.Replace(good, "layout: classic", "layout: classic\n  floor: {query: SELECT max(id) FROM orders}", 1),
			`config: x.yaml:6: snowflake.floor.store: empty: name the SQL store the query runs on`},
		{"floor query on redis", strings.Replace(good, "local: {type: sqlite}", "local: {type: sqlite}\n  r: {type: redis, dsn: 'redis://x'}", 1) + "    floor: {store: r, query: SELECT 1}\n",
			`config: x.yaml:14: tags[1].floor.store: store "r" is redis: a floor query runs on sqlite, postgres or mysql`},
		{"floor query not a select", good + "    floor: {store: local, query: DELETE FROM orders}\n",
			`config: x.yaml:13: tags[1].floor.query: "DELETE FROM orders": want a SELECT`},
		{"floor on a uuid7 tag", good + "  - {name: u, kind: uuid7, floor: 5}\n",
			`config: x.yaml:13: tags[2].floor: a uuid7 tag's IDs are random`},
		{"leaf schema on sqlite", good + "    schema: leaf\n",
			`config: x.yaml:13: tags[1].schema: leaf's table is on postgres or mysql, and store "local" is sqlite`},
		{"unknown schema", good + "    schema: snowflake\n",
			`config: x.yaml:13: tags[1].schema: unknown schema "snowflake" (want idgen, leaf or tinyid)`},
		{"table on idgen's schema", good + "    table: leaf_alloc\n",
			`config: x.yaml:13: tags[1].table: a tag on idgen's own table uses the store's segment_table`},
		{"min worker above max", strings.Replace(good, "lease: {store: local}", "lease: {store: local, min_worker: 600, max_worker: 511}", 1),
			`config: x.yaml:6: snowflake.lease.min_worker: 600 out of range [0, max_worker 511]`},
		{"max worker beyond layout", strings.Replace(good, "lease: {store: local}", "lease: {store: local, max_worker: 1024}", 1),
			`config: x.yaml:6: snowflake.lease.max_worker: 1024 out of range [0, 1023] of layout classic`},
		{"static worker outside range", strings.Replace(good, "lease: {store: local}", "lease: {worker: 3, min_worker: 512}", 1),
			`config: x.yaml:6: snowflake.lease.worker: 3 is outside min_worker 512 to max_worker 1023`},
		{"duplicate tag", strings.Replace(good, "name: order", "name: id", 1),
			`config: x.yaml:10: tags[1].name: tag "id" is configured twice`},
		{"bad store type", strings.Replace(good, "type: sqlite", "type: mongo", 1),
			`config: x.yaml:3: stores.local.type: unknown store type "mongo"`},
		{"short token", good + "tokens:\n  - {token: short}\n",
			`config: x.yaml:14: tokens[0].token: shorter than 16 bytes`},
		{"token of an unknown tag", good + "tokens:\n  - token: 0123456789abcdef0123\n    tags: [id, nope]\n",
			`config: x.yaml:15: tokens[0].tags[1]: no tag named "nope"`},
		{"open non-loopback", strings.Replace(good, "127.0.0.1:7070", "0.0.0.0:7070", 1),
			`config: x.yaml:1: listen: 0.0.0.0:7070 is not a loopback address and no token is configured`},
		{"number spec", good + "  - {name: ord, kind: number, prefix: 'O RD'}\n",
			`config: x.yaml:13: tags[2]: number:`},
		{"bad duration", strings.Replace(good, "lease: {store: local}", "lease: {store: local, ttl: soon}", 1),
			`config: x.yaml:6: cannot unmarshal !!str`},
		{"not yaml", "listen: [", `config: x.yaml: `},
		{"no tags", "listen: 127.0.0.1:1\n", `config: x.yaml: tags: none configured`},
		{"cap", good + "limits: {max_count: -1}\n", `config: x.yaml:13: limits.max_count: -1: want at least 1`},
		{"tls half", good + "tls: {cert: a.pem}\n", `config: x.yaml:13: tls: cert and key go together`},
		{"admin token of some tags", good + "tokens:\n  - {token: 0123456789abcdef0123, tags: [id], admin: true}\n",
			`config: x.yaml:14: tokens[0].admin: an admin token changes every tag`},
		{"token name twice", good + "tokens:\n  - {name: ops, token: 0123456789abcdef0123}\n  - {name: ops, token: 0123456789abcdef0124}\n",
			`config: x.yaml:15: tokens[1].name: "ops" names tokens[0] already`},
		{"token named as another's default", good + "tokens:\n  - {token: 0123456789abcdef0123}\n  - {name: 'tokens[0]', token: 0123456789abcdef0124}\n",
			`config: x.yaml:15: tokens[1].name: "tokens[0]" names tokens[0] already`},
		{"tag store missing", good + "tag_store: nowhere\n", `config: x.yaml:13: tag_store: no store named "nowhere"`},
		{"tag store etcd", strings.Replace(good, "stores:\n", "stores:\n  e: {type: etcd, endpoints: [127.0.0.1:2379]}\n", 1) + "tag_store: e\n",
			`config: x.yaml:14: tag_store: store "e" is etcd`},
		{"rate interval", good + "console: {rate_interval: -1s}\n", `config: x.yaml:13: console.rate_interval: -1s is negative`},
		{"advertise not a URL", good + "advertise: 10.0.0.1:7070\n", `config: x.yaml:13: advertise: "10.0.0.1:7070": want a base URL starting http:// or https://`},
		{"advertise without host", good + "advertise: http://:7070\n", `config: x.yaml:13: advertise: "http://:7070": no host`},
		{"advertise with a query", good + "advertise: http://h:7070/?x=1\n", `config: x.yaml:13: advertise: "http://h:7070/?x=1": want scheme, host, port`},
		{"advertise port", good + "advertise: http://h:70700\n", `config: x.yaml:13: advertise: "http://h:70700": port 70700 out of range`},
		{"peer not a URL", good + "peers: [http://a:1, b:2]\n", `config: x.yaml:13: peers[1]: "b:2": want a base URL`},
		{"server table", strings.Replace(good, "local: {type: sqlite}", "local: {type: sqlite, server_table: 'x; DROP TABLE y'}", 1),
			`config: x.yaml:3: stores.local.server_table: "x; DROP TABLE y": want name or schema.name`},
		{"server table derived too long", strings.Replace(good, "local: {type: sqlite}", "local: {type: sqlite, lease_table: "+strings.Repeat("l", 60)+"}", 1),
			`config: x.yaml:3: stores.local.lease_table: "` + strings.Repeat("l", 60) + `": the server table derived from it, "` + strings.Repeat("l", 60) + `_servers", is not a valid table name`},
		{"change table derived too long", strings.Replace(good, "local: {type: sqlite}", "local: {type: sqlite, segment_table: "+strings.Repeat("s", 56)+"}", 1),
			`config: x.yaml:3: stores.local.segment_table: "` + strings.Repeat("s", 56) + `": the change table derived from it, "` + strings.Repeat("s", 56) + `_changes", is not a valid table name`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("x.yaml", []byte(c.yaml))
			if err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Fatalf("got  %v\nwant %s...", err, c.want)
			}
		})
	}
}

// TestSwitchFields: a layout in full, floors as numbers and queries, a worker range (on
// every type of lease store).
func TestSwitchFields(t *testing.T) {
	y := strings.Replace(good, "layout: classic\n  lease: {store: local}", `layout: {preset: sonyflake-v1, epoch: 2020-01-01}
  floor: 123456789
  lease: {store: local, min_worker: 512, max_worker: 1023}`, 1) + "    floor: {store: local, query: SELECT max(id) FROM orders}\n"
	c, err := Parse("x.yaml", []byte(y))
	if err != nil {
		t.Fatal(err)
	}
	l, err := Layout(string(c.Snowflake.Layout))
	if err != nil || l.Spec() != "epoch=2020-01-01T00:00:00Z,unit=10ms,bits=39/16/8,order=time-seq-worker" {
		t.Fatalf("layout %q: %v, %v", c.Snowflake.Layout, l.Spec(), err)
	}
	if c.Snowflake.Floor.ID != 123456789 || c.Tags[1].Floor.Query != "SELECT max(id) FROM orders" || c.Snowflake.Lease.MinWorker != 512 {
		t.Fatalf("%+v %+v %+v", c.Snowflake, c.Tags[1].Floor, c.Snowflake.Lease)
	}
	// Every lease store claims within a range: Redis and etcd too.
	for _, st := range []string{"{type: redis, dsn: 'redis://x'}", "{type: etcd, endpoints: ['127.0.0.1:2379']}"} {
		y := strings.Replace(strings.Replace(good, "local: {type: sqlite}", "local: {type: sqlite}\n  r: "+st, 1), "lease: {store: local}", "lease: {store: r, min_worker: 512}", 1)
		if c, err := Parse("x.yaml", []byte(y)); err != nil || c.Snowflake.Lease.MinWorker != 512 {
			t.Errorf("min_worker on %s: %v", st, err)
		}
	}
	for _, name := range []string{"leaf", "Classic-DC", "classicdc", "uid-generator", "epoch=1288834974657,unit=1ms,bits=41/10/12"} {
		if _, err := Parse("x.yaml", []byte(strings.Replace(good, "layout: classic", "layout: "+name, 1))); err != nil {
			t.Errorf("layout %s: %v", name, err)
		}
	}
}

// TestConsoleSwitch: the console is on unless the file or -console says otherwise.
func TestConsoleSwitch(t *testing.T) {
	c, err := Parse("x.yaml", []byte(good))
	if err != nil || !c.ConsoleOn() {
		t.Fatalf("default: on %v, %v", c != nil && c.ConsoleOn(), err)
	}
	if c, err = Parse("x.yaml", []byte(good+"console: {enabled: false}\n")); err != nil || c.ConsoleOn() {
		t.Fatalf("enabled: false: %v", err)
	}
	file := filepath.Join(t.TempDir(), "idgen.yaml")
	if err := os.WriteFile(file, []byte(good), 0o644); err != nil {
		t.Fatal(err)
	}
	none := func(string) (string, bool) { return "", false }
	if c, _, err = Load([]string{"-config", file, "-console=false"}, none, io.Discard); err != nil || c.ConsoleOn() {
		t.Fatalf("-console=false: %v", err)
	}
	env := func(k string) (string, bool) { return "false", k == "IDGEN_CONSOLE" }
	if c, _, err = Load([]string{"-config", file}, env, io.Discard); err != nil || c.ConsoleOn() {
		t.Fatalf("IDGEN_CONSOLE=false: %v", err)
	}
}

func TestLoadPrecedence(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "idgen.yaml")
	if err := os.WriteFile(file, []byte(good), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"IDGEN_LISTEN": "127.0.0.1:8001", "IDGEN_MAX_COUNT": "50"}
	getenv := func(k string) (string, bool) { v, ok := env[k]; return v, ok }

	c, _, err := Load([]string{"-config", file}, getenv, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.Listen != "127.0.0.1:8001" || c.Limits.MaxCount != 50 {
		t.Fatalf("env did not override the file: %s %d", c.Listen, c.Limits.MaxCount)
	}
	c, _, err = Load([]string{"-config", file, "-listen", "127.0.0.1:8002"}, getenv, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.Listen != "127.0.0.1:8002" {
		t.Fatalf("the flag did not override the environment: %s", c.Listen)
	}

	// An error in an overridden field names the flag or the variable.
	_, _, err = Load([]string{"-config", file, "-listen", "0.0.0.0:9"}, getenv, io.Discard)
	if err == nil || !strings.HasPrefix(err.Error(), "config: flag -listen: listen: 0.0.0.0:9 is not a loopback address") {
		t.Fatalf("got %v", err)
	}
	env["IDGEN_LISTEN"] = "0.0.0.0:9"
	_, _, err = Load([]string{"-config", file}, getenv, io.Discard)
	if err == nil || !strings.HasPrefix(err.Error(), "config: IDGEN_LISTEN: listen:") {
		t.Fatalf("got %v", err)
	}
	// --insecure is the explicit opt-out; a token is the other way.
	if _, _, err = Load([]string{"-config", file, "-insecure"}, getenv, io.Discard); err != nil {
		t.Fatalf("with -insecure: %v", err)
	}
	env["IDGEN_TOKEN"] = "0123456789abcdef0123"
	if _, _, err = Load([]string{"-config", file}, getenv, io.Discard); err != nil {
		t.Fatalf("with IDGEN_TOKEN: %v", err)
	}
	env["IDGEN_MAX_COUNT"] = "many"
	_, _, err = Load([]string{"-config", file}, getenv, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "IDGEN_MAX_COUNT") {
		t.Fatalf("got %v", err)
	}
	delete(env, "IDGEN_MAX_COUNT")
	_, _, err = Load([]string{"-config", filepath.Join(dir, "missing.yaml")}, getenv, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "missing.yaml") {
		t.Fatalf("got %v", err)
	}
}

// FuzzParse: no input panics, and what Parse accepts is whole.
func FuzzParse(f *testing.F) {
	f.Add([]byte(good))
	f.Add(Default())
	f.Add([]byte("listen: [\n"))
	f.Add([]byte(strings.Replace(good, "kind: snowflake", "kind: number\n    prefix: ORD\n    zone: '+08:00'", 1)))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse("fuzz.yaml", data)
		if err != nil {
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("not a *config.Error: %v", err)
			}
			return
		}
		if c.Listen == "" || len(c.Tags) == 0 || c.Limits.MaxCount < 1 {
			t.Fatalf("accepted an incomplete configuration: %+v", c)
		}
	})
}

// TestVersionFlag: -version asks for the release and nothing is loaded (a broken
// configuration file does not stop it).
func TestVersionFlag(t *testing.T) {
	env := func(string) (string, bool) { return "", false }
	cfg, opts, err := Load([]string{"-version", "-config", "/nonexistent.yaml"}, env, io.Discard)
	if err != nil || cfg != nil || !opts.Version {
		t.Fatalf("Load(-version) = %v, %+v, %v; want nil config, Version, no error", cfg, opts, err)
	}
}

// TestAdvertise: the advertised base URL is the one configured (a trailing slash
// dropped), else derived from listen: its host when named, the machine's name for a
// wildcard, https with TLS; SetListen derives it again for the port a listener got,
// never over a configured one; -advertise and IDGEN_ADVERTISE override the file.
func TestAdvertise(t *testing.T) {
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		listen string
		tls    bool
		want   string
	}{
		{"127.0.0.1:7070", false, "http://127.0.0.1:7070"},
		{"localhost:7070", true, "https://localhost:7070"},
		{"[::1]:7070", false, "http://[::1]:7070"},
		{"10.0.0.7:80", false, "http://10.0.0.7:80"},
		{"0.0.0.0:7070", false, "http://" + host + ":7070"},
		{"[::]:7443", true, "https://" + host + ":7443"},
		{":7070", false, "http://" + host + ":7070"},
	} {
		if got := DefaultAdvertise(c.listen, c.tls); got != c.want {
			t.Errorf("DefaultAdvertise(%q, %v) = %q, want %q", c.listen, c.tls, got, c.want)
		}
	}

	c, err := Parse("x.yaml", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if c.Advertise != "http://127.0.0.1:7070" {
		t.Errorf("derived advertise %q", c.Advertise)
	}
	c.SetListen("127.0.0.1:40123")
	if c.Advertise != "http://127.0.0.1:40123" {
		t.Errorf("after SetListen: advertise %q", c.Advertise)
	}
	// A named listen host stays in the advertised URL: only the port is the listener's.
	for _, named := range []string{"localhost", "idgen-1.internal"} {
		c, err = Parse("x.yaml", []byte(strings.Replace(good, "listen: 127.0.0.1:7070", "listen: "+named+":0", 1)+"tokens:\n  - {token: 0123456789abcdef0123}\n"))
		if err != nil {
			t.Fatal(err)
		}
		c.SetListen("127.0.0.1:40124")
		if want := "http://" + named + ":40124"; c.Advertise != want || c.Listen != named+":40124" {
			t.Errorf("listen %s:0, SetListen(127.0.0.1:40124): advertise %q, listen %q; want %q", named, c.Advertise, c.Listen, want)
		}
	}
	c, err = Parse("x.yaml", []byte(good+"advertise: https://idgen-1.example:7443/\npeers: [http://idgen-2.example:7070/]\n"))
	if err != nil {
		t.Fatal(err)
	}
	c.SetListen("127.0.0.1:40123")
	if c.Advertise != "https://idgen-1.example:7443" || c.Peers[0] != "http://idgen-2.example:7070" {
		t.Errorf("configured advertise %q, peers %q", c.Advertise, c.Peers)
	}

	file := filepath.Join(t.TempDir(), "idgen.yaml")
	if err := os.WriteFile(file, []byte(good), 0o644); err != nil {
		t.Fatal(err)
	}
	env := func(k string) (string, bool) { return "http://from-env:1", k == "IDGEN_ADVERTISE" }
	if c, _, err = Load([]string{"-config", file}, env, io.Discard); err != nil || c.Advertise != "http://from-env:1" {
		t.Fatalf("IDGEN_ADVERTISE: %v %v", c, err)
	}
	if c, _, err = Load([]string{"-config", file, "-advertise", "http://from-flag:2"}, env, io.Discard); err != nil || c.Advertise != "http://from-flag:2" {
		t.Fatalf("-advertise: %v %v", c, err)
	}
	_, _, err = Load([]string{"-config", file, "-advertise", "from-flag:2"}, env, io.Discard)
	if err == nil || !strings.HasPrefix(err.Error(), `config: flag -advertise: advertise: "from-flag:2": want a base URL`) {
		t.Fatalf("a bad -advertise: %v", err)
	}
}

// TestServerTableName: the server table follows the lease table unless named, so fleets
// sharing one database with lease tables of their own keep their records apart.
func TestServerTableName(t *testing.T) {
	for _, c := range []struct {
		s    Store
		want string
	}{
		{Store{}, "idgen_lease_servers"},
		{Store{LeaseTable: "staging_lease"}, "staging_lease_servers"},
		{Store{LeaseTable: "app.lease"}, "app.lease_servers"},
		{Store{LeaseTable: "staging_lease", ServerTable: "fleet"}, "fleet"},
	} {
		if got := c.s.ServerTableName(); got != c.want {
			t.Errorf("%+v.ServerTableName() = %q, want %q", c.s, got, c.want)
		}
	}
}
