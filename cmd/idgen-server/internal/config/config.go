// Package config reads idgen-server's configuration: a YAML file (or the embedded
// default), then IDGEN_* environment variables, then flags, each overriding the one
// before. A bad configuration is refused with the file, the line, the field and what is
// wrong with it, before anything starts.
package config

import (
	"cmp"
	_ "embed"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/idgen/idgen/runtime/lease"
	"github.com/idgen/idgen/runtime/number"
	"github.com/idgen/idgen/runtime/segment"
	"github.com/idgen/idgen/runtime/snowflake"
	"github.com/idgen/idgen/runtime/sqldb"
	"github.com/idgen/idgen/runtime/typeid"
)

//go:embed default.yaml
var defaultYAML []byte

// Default returns the text of the embedded default configuration.
func Default() []byte { return append([]byte(nil), defaultYAML...) }

// Bounds of a segment tag's numbers, configured or created in the console: a counter at
// MaxFirstID advancing by MaxStep at every reservation stays within int64 for more than
// four billion reservations, so no store overflows it (SQLite would turn the counter
// into a REAL, and no instance could read the tag again).
const (
	// MaxStep bounds a segment tag's step, min_step and max_step.
	MaxStep = 1_000_000_000
	// MaxFirstID bounds the first ID of a tag created in the console: 2^62.
	MaxFirstID = 1 << 62
)

// Named defaults for fields left empty.
const (
	DefaultMaxCount        = 100_000
	DefaultMaxRequestBytes = 64 << 10
	// DefaultMaxConnections caps the connections served at once; more wait in the
	// kernel's accept queue.
	DefaultMaxConnections = 1024
	// DefaultBodyTimeout bounds the reading of one request's body.
	DefaultBodyTimeout = 10 * time.Second
	DefaultDrain       = 10 * time.Second
	DefaultLayout      = "classic"
	// DefaultSQLiteFile is the file of an sqlite store with no dsn, in the user's
	// cache directory.
	DefaultSQLiteFile = "idgen-server/idgen-server.db"
	// MinTokenLen is the shortest token accepted: a token is a secret, not a name.
	MinTokenLen = 16
)

// Kinds of tags.
const (
	KindSnowflake = "snowflake"
	KindSegment   = "segment"
	KindNumber    = "number"
	KindUUID7     = "uuid7"
	KindTypeID    = "typeid"
)

// Schemas of a segment tag's table.
const (
	SchemaIdgen  = "idgen"
	SchemaLeaf   = "leaf"
	SchemaTinyid = "tinyid"
)

// Types of stores.
const (
	StoreSQLite   = "sqlite"
	StorePostgres = "postgres"
	StoreMySQL    = "mysql"
	StoreRedis    = "redis"
	StoreEtcd     = "etcd"
)

// Config is idgen-server's configuration.
type Config struct {
	// Listen is the address of the one port: gRPC, gRPC-Web, Connect, Leaf's paths,
	// health and metrics.
	Listen string `yaml:"listen"`
	// Insecure allows a non-loopback Listen without any token, and cors "*" without
	// any token.
	Insecure bool `yaml:"insecure"`
	// Advertise is the base URL other instances and the console reach this one at
	// (http://host:port or https://host:port), recorded in the lease store so that the
	// instances sharing it find one another. Empty: derived from Listen (DefaultAdvertise).
	Advertise string `yaml:"advertise"`
	TLS       TLS    `yaml:"tls"`
	// Tokens are the bearer tokens accepted. None: every caller may use every tag (only
	// on loopback unless Insecure).
	Tokens []Token `yaml:"tokens"`
	Limits Limits  `yaml:"limits"`
	Log    Log     `yaml:"log"`
	// Drain bounds graceful shutdown: in-flight calls get this long to finish.
	Drain time.Duration `yaml:"drain"`
	// Stores are the named connections the lease and the segment tags use.
	Stores map[string]Store `yaml:"stores"`
	// Snowflake is the layout and worker-ID lease of snowflake and number tags.
	Snowflake *Snowflake `yaml:"snowflake"`
	Tags      []Tag      `yaml:"tags"`
	// LeafSnowflakeTag, when set, is the snowflake tag Leaf's path
	// /api/snowflake/get/{key} issues from whatever the key (Leaf ignores it), so Leaf
	// users switch by changing only the host; the key is then a tag name only when it
	// names one.
	LeafSnowflakeTag string `yaml:"leaf_snowflake_tag"`
	// Peers are base URLs of more instances for the console's fleet view, beyond those
	// found through the lease store (instances on a static worker ID or another store),
	// each named by its Advertise URL: the fleet view signs each Status call for the URL
	// it calls, and an instance accepts only a signature of its own Advertise URL.
	Peers []string `yaml:"peers"`
	// TagStore names the store whose table holds segment tags made at run time (the
	// console's admin form creates them there): every tag found in it and not under
	// Tags is served as a segment tag, found at start and every TagRefresh after, so
	// every instance sharing the store serves it. Empty: only the tags under Tags.
	TagStore string `yaml:"tag_store"`
	// Console configures the web console at "/".
	Console Console `yaml:"console"`
	// CORS lets pages on other origins call the API; off when empty.
	CORS CORS `yaml:"cors"`

	// Source names where the configuration came from: a file name or "default".
	Source string `yaml:"-"`
	// advertiseDerived says Advertise was derived from Listen, so SetListen derives it
	// again.
	advertiseDerived bool
}

// TLS names the files of the server's certificate and, for client-certificate auth,
// of the CAs that sign clients' certificates.
type TLS struct {
	Cert     string `yaml:"cert"`
	Key      string `yaml:"key"`
	ClientCA string `yaml:"client_ca"`
}

// Token is a bearer token and the tags it grants (all when Tags is empty).
type Token struct {
	// Name identifies the token in logs (never the token itself).
	Name string `yaml:"name"`
	// Token is the secret; or TokenFile names a file holding it, or TokenEnv an
	// environment variable.
	Token     string   `yaml:"token"`
	TokenFile string   `yaml:"token_file"`
	TokenEnv  string   `yaml:"token_env"`
	Tags      []string `yaml:"tags"`
	// Admin lets the token change tags in the console (create segment tags in TagStore,
	// change a step). An admin token grants every tag (Tags empty).
	Admin bool `yaml:"admin"`

	// secret is the secret read from Token, TokenFile or TokenEnv when the
	// configuration was checked (loaded set): Secret returns it, the file is not read
	// again.
	secret string
	loaded bool
}

// Console configures the web console: the fleet, the tags' buffers and a decoder of
// IDs, served at "/" behind the same tokens as the API.
type Console struct {
	// Enabled turns the console on or off; on when not set.
	Enabled *bool `yaml:"enabled"`
	// RateInterval is the interval of one IDs-per-second figure in Status and in the
	// console's sparklines, which show the last 60; 10s (ten minutes) if 0.
	RateInterval time.Duration `yaml:"rate_interval"`
}

// ConsoleOn reports whether the console is served.
func (c *Config) ConsoleOn() bool { return c.Console.Enabled == nil || *c.Console.Enabled }

// Limits bound requests before any work is done for them.
type Limits struct {
	// MaxCount caps List's and Range's count.
	MaxCount int `yaml:"max_count"`
	// MaxRequestBytes caps a request's body.
	MaxRequestBytes int `yaml:"max_request_bytes"`
	// MaxConnections caps the connections served at once (DefaultMaxConnections if 0):
	// more wait to be accepted until one closes.
	MaxConnections int `yaml:"max_connections"`
	// BodyTimeout bounds the reading of a request's body from the end of its headers
	// (DefaultBodyTimeout if 0): a caller sending it slowly is cut off.
	BodyTimeout time.Duration `yaml:"body_timeout"`
}

// Log configures the JSON log.
type Log struct {
	// Level is debug, info, warn or error.
	Level string `yaml:"level"`
}

// Store is a connection to a database, Redis or etcd.
type Store struct {
	// Type is sqlite, postgres, mysql, redis or etcd.
	Type string `yaml:"type"`
	// DSN is the data source name (a file name for sqlite, a URL for postgres and
	// redis, go-sql-driver's form for mysql).
	DSN string `yaml:"dsn"`
	// Endpoints are etcd's client endpoints.
	Endpoints []string `yaml:"endpoints"`
	// Prefix starts the keys on Redis and etcd (the backends' defaults if empty).
	Prefix string `yaml:"prefix"`
	// LeaseTable and SegmentTable name the SQL tables (the runtime's defaults if empty).
	LeaseTable   string `yaml:"lease_table"`
	SegmentTable string `yaml:"segment_table"`
	// ServerTable names the SQL table in which the servers leasing worker IDs from this
	// store record themselves, for the fleet view: if empty, the lease table's name (or
	// lease.DefaultTable) with "_servers" added, so two fleets sharing a database with
	// lease tables of their own do not list each other ([Store.ServerTableName]).
	ServerTable string `yaml:"server_table"`
	// AllowNoPersistence accepts a Redis without the append-only file.
	AllowNoPersistence bool `yaml:"allow_no_persistence"`
}

// Snowflake configures the one generator of snowflake and number tags.
type Snowflake struct {
	// Layout is a preset (classic, classic-dc, sonyflake, jsonsafe, leaf, twitter,
	// bwmarrin, sonyflake-v1, sonyflake-v2, uid-generator) or the layout in full (see
	// LayoutText).
	Layout LayoutText `yaml:"layout"`
	// Floor is the highest ID the system being continued issued under this layout (see
	// Floor): the generator refuses to start unless its next ID is above it.
	Floor *Floor `yaml:"floor"`
	Lease Lease  `yaml:"lease"`

	// Parsed is Layout parsed, set when the configuration is checked: the layout the
	// generator, the number tags and the decoder use.
	Parsed snowflake.Layout `yaml:"-"`
}

// Lease says where the worker ID comes from: a store, or a static Worker.
type Lease struct {
	Store string `yaml:"store"`
	// Worker, when set, is a static worker ID: no lease, the operator keeps it unique.
	Worker *int64        `yaml:"worker"`
	TTL    time.Duration `yaml:"ttl"`
	Margin time.Duration `yaml:"margin"`
	Skew   time.Duration `yaml:"skew"`
	// MaxWorker bounds the worker IDs leased; the layout's maximum if 0.
	MaxWorker int64 `yaml:"max_worker"`
	// MinWorker is the lowest worker ID leased (0 if unset): with MaxWorker it keeps this
	// fleet off the worker IDs the old service's machines use during a switch. Every lease
	// store (sqlite, postgres, mysql, redis, etcd) claims within the range.
	MinWorker int64 `yaml:"min_worker"`
}

// Tag is one business tag.
type Tag struct {
	Name string `yaml:"name"`
	// Kind is snowflake, segment, number, uuid7 or typeid.
	Kind string `yaml:"kind"`
	// Store, Step, MinStep and MaxStep configure a segment tag.
	Store   string `yaml:"store"`
	Step    int64  `yaml:"step"`
	MinStep int64  `yaml:"min_step"`
	MaxStep int64  `yaml:"max_step"`
	// Prefix, Time, Zone and Check configure a number tag (runtime/number's Spec);
	// Prefix, a typeid tag, and optionally a snowflake tag, whose text is then the typed
	// form "usr_" and 13 base32 characters instead of the decimal ID.
	Prefix string `yaml:"prefix"`
	Time   string `yaml:"time"`
	Zone   string `yaml:"zone"`
	Check  bool   `yaml:"check"`
	// Location is Zone loaded (UTC when empty), set on a number tag when the
	// configuration is checked.
	Location *time.Location `yaml:"-"`
	// Schema, for a segment tag, is whose table holds its counter: idgen (the store's
	// segment table, the default), leaf (Leaf's leaf_alloc, whose row biz_tag = name the
	// tag takes blocks from beside Leaf) or tinyid (tinyid's tiny_id_info, biz_type =
	// name, with its delta and remainder); leaf and tinyid need a postgres or mysql store.
	// Table names the peer's table when it is not the peer's default.
	Schema string `yaml:"schema"`
	Table  string `yaml:"table"`
	// Floor is the highest ID already issued for the tag by the system it continues: a
	// segment tag refuses to start unless its first block starts above it. On a snowflake
	// or number tag it adds to snowflake.floor (the generator is shared).
	Floor *Floor `yaml:"floor"`
}

// Error is a configuration refused: Source (a file, "default", a flag or an
// environment variable), the Line in a file when known, the Field and what is wrong.
type Error struct {
	Source string
	Line   int
	Field  string
	Msg    string
}

// Error implements error.
func (e *Error) Error() string {
	loc := e.Source
	if e.Line > 0 {
		loc = fmt.Sprintf("%s:%d", loc, e.Line)
	}
	if e.Field == "" {
		return fmt.Sprintf("config: %s: %s", loc, e.Msg)
	}
	return fmt.Sprintf("config: %s: %s: %s", loc, e.Field, e.Msg)
}

// Parse reads a configuration from data, named source in errors, fills defaults and
// validates it. Unknown fields are errors.
func Parse(source string, data []byte) (*Config, error) { return parseWith(source, data, nil, nil) }

// parseWith is Parse with override applied after decoding and before checking; an error
// in a field whose name is a key of origin names that origin (a flag or a variable)
// instead of the file.
func parseWith(source string, data []byte, override func(*Config), origin map[string]string) (*Config, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, &Error{Source: source, Msg: strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	c := &Config{}
	if len(root.Content) > 0 {
		dec := yaml.NewDecoder(strings.NewReader(string(data)))
		dec.KnownFields(true)
		if err := dec.Decode(c); err != nil {
			return nil, decodeError(source, err)
		}
	}
	c.Source = source
	if override != nil {
		override(c)
	}
	if err := c.check(); err != nil {
		var ce *Error
		if errors.As(err, &ce) {
			if o, ok := origin[ce.Field]; ok {
				ce.Source = o
			} else {
				ce.Source = source
				ce.Line = lineOf(&root, ce.Field)
			}
		}
		return nil, err
	}
	return c, nil
}

// lineRE finds the line of yaml.v3's decoding errors ("line 3: field x not found...").
var lineRE = regexp.MustCompile(`^\s*line (\d+): (.*)$`)

func decodeError(source string, err error) error {
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		m := lineRE.FindStringSubmatch(te.Errors[0])
		if m != nil {
			var line int
			fmt.Sscan(m[1], &line)
			return &Error{Source: source, Line: line, Msg: m[2]}
		}
		return &Error{Source: source, Msg: te.Errors[0]}
	}
	return &Error{Source: source, Msg: strings.TrimPrefix(err.Error(), "yaml: ")}
}

// lineOf returns the line of the field at path ("tags[2].kind") in root, or of its
// nearest ancestor that exists, 0 if none.
func lineOf(root *yaml.Node, path string) int {
	if root == nil || len(root.Content) == 0 || path == "" {
		return 0
	}
	n := root.Content[0]
	line := 0
	for part := range strings.SplitSeq(path, ".") {
		key, idx := part, -1
		if i := strings.IndexByte(part, '['); i >= 0 {
			key = part[:i]
			fmt.Sscanf(part[i:], "[%d]", &idx)
		}
		next := (*yaml.Node)(nil)
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == key {
					next, line = n.Content[i+1], n.Content[i].Line
					break
				}
			}
		}
		if next == nil {
			return line
		}
		n = next
		if idx >= 0 {
			if n.Kind != yaml.SequenceNode || idx >= len(n.Content) {
				return line
			}
			n = n.Content[idx]
			line = n.Line
		}
	}
	return line
}

func fieldErr(field, format string, args ...any) error {
	return &Error{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// ValidTagName checks name as the name of a tag, configured or created at run time.
func ValidTagName(name string) error {
	if !tagNameRE.MatchString(name) {
		return fmt.Errorf("%q: want 1 to 128 letters, digits, '_', '.' or '-', starting with a letter or digit", name)
	}
	return nil
}

// tagNameRE is what a tag name may be: it appears in URL paths and metric labels.
var tagNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$`)

// check fills defaults and validates c, returning an *Error naming the field.
func (c *Config) check() error {
	if err := c.CORS.check(); err != nil {
		return err
	}
	if c.Listen == "" {
		return fieldErr("listen", "empty: want host:port")
	}
	host, _, err := net.SplitHostPort(c.Listen)
	if err != nil {
		return fieldErr("listen", "%q is not host:port: %v", c.Listen, err)
	}
	if c.Limits.MaxCount == 0 {
		c.Limits.MaxCount = DefaultMaxCount
	}
	if c.Limits.MaxCount < 1 {
		return fieldErr("limits.max_count", "%d: want at least 1", c.Limits.MaxCount)
	}
	if c.Limits.MaxRequestBytes == 0 {
		c.Limits.MaxRequestBytes = DefaultMaxRequestBytes
	}
	if c.Limits.MaxRequestBytes < 256 {
		return fieldErr("limits.max_request_bytes", "%d: want at least 256", c.Limits.MaxRequestBytes)
	}
	if c.Limits.MaxConnections == 0 {
		c.Limits.MaxConnections = DefaultMaxConnections
	}
	if c.Limits.MaxConnections < 1 {
		return fieldErr("limits.max_connections", "%d: want at least 1", c.Limits.MaxConnections)
	}
	if c.Limits.BodyTimeout == 0 {
		c.Limits.BodyTimeout = DefaultBodyTimeout
	}
	if c.Limits.BodyTimeout < 0 {
		return fieldErr("limits.body_timeout", "%v is negative", c.Limits.BodyTimeout)
	}
	if c.Drain == 0 {
		c.Drain = DefaultDrain
	}
	if c.Drain < 0 {
		return fieldErr("drain", "%v is negative", c.Drain)
	}
	switch c.Log.Level {
	case "":
		c.Log.Level = "info"
	case "debug", "info", "warn", "error":
	default:
		return fieldErr("log.level", "%q: want debug, info, warn or error", c.Log.Level)
	}
	if (c.TLS.Cert == "") != (c.TLS.Key == "") {
		return fieldErr("tls", "cert and key go together: set both or neither")
	}
	if c.TLS.ClientCA != "" && c.TLS.Cert == "" {
		return fieldErr("tls.client_ca", "client certificates need the server's own: set tls.cert and tls.key")
	}
	for _, f := range []struct{ field, name string }{{"tls.cert", c.TLS.Cert}, {"tls.key", c.TLS.Key}, {"tls.client_ca", c.TLS.ClientCA}} {
		if f.name != "" {
			if _, err := os.Stat(f.name); err != nil {
				return fieldErr(f.field, "%v", err)
			}
		}
	}
	if c.Advertise == "" {
		c.Advertise, c.advertiseDerived = DefaultAdvertise(c.Listen, c.TLS.Cert != ""), true
	} else {
		u, err := BaseURL(c.Advertise)
		if err != nil {
			return fieldErr("advertise", "%v", err)
		}
		c.Advertise = u
	}
	for i, p := range c.Peers {
		u, err := BaseURL(p)
		if err != nil {
			return fieldErr(fmt.Sprintf("peers[%d]", i), "%v", err)
		}
		c.Peers[i] = u
	}

	for name, s := range c.Stores {
		field := "stores." + name
		if s.ServerTable != "" && sqldb.CheckTable(s.ServerTable) != nil {
			return fieldErr(field+".server_table", "%q: want name or schema.name, each 1 to 63 ASCII letters, digits or '_', not starting with a digit", s.ServerTable)
		}
		if s.ServerTable == "" && sqldb.CheckTable(s.ServerTableName()) != nil {
			return fieldErr(field+".lease_table", "%q: the server table derived from it, %q, is not a valid table name (parts of at most 63 bytes): shorten it or set server_table", s.LeaseTable, s.ServerTableName())
		}
		if sqldb.CheckTable(s.ChangeTableName()) != nil {
			return fieldErr(field+".segment_table", "%q: the change table derived from it, %q, is not a valid table name (parts of at most 63 bytes): shorten it", s.SegmentTable, s.ChangeTableName())
		}
		switch s.Type {
		case StoreSQLite:
		case StorePostgres, StoreMySQL, StoreRedis:
			if s.DSN == "" {
				return fieldErr(field+".dsn", "empty: a %s store needs a dsn", s.Type)
			}
		case StoreEtcd:
			if len(s.Endpoints) == 0 {
				return fieldErr(field+".endpoints", "empty: an etcd store needs endpoints")
			}
		case "":
			return fieldErr(field+".type", "empty: want sqlite, postgres, mysql, redis or etcd")
		default:
			return fieldErr(field+".type", "unknown store type %q (want sqlite, postgres, mysql, redis or etcd)", s.Type)
		}
	}

	// The layout is parsed once: number tags compile against it (the classic layout
	// while it is refused, so that a tag's own error comes first, as listed), and the
	// snowflake section refuses it below.
	layout, layoutErr := snowflake.Classic(), error(nil)
	if c.Snowflake != nil {
		if c.Snowflake.Layout == "" {
			c.Snowflake.Layout = DefaultLayout
		}
		if l, err := Layout(string(c.Snowflake.Layout)); err != nil {
			layoutErr = err
		} else {
			layout = l
		}
	}
	names := map[string]bool{}
	needSnowflake := ""
	for i, t := range c.Tags {
		field := fmt.Sprintf("tags[%d]", i)
		if err := ValidTagName(t.Name); err != nil {
			return fieldErr(field+".name", "%v", err)
		}
		if names[t.Name] {
			return fieldErr(field+".name", "tag %q is configured twice", t.Name)
		}
		names[t.Name] = true
		if err := c.checkFloor(field+".floor", t.Floor); err != nil {
			return err
		}
		switch t.Kind {
		case KindSnowflake:
			needSnowflake = field
			if t.Prefix != "" {
				if err := typeid.ValidPrefix(t.Prefix); err != nil {
					return fieldErr(field+".prefix", "%v", err)
				}
			}
		case KindSegment:
			s, ok := c.Stores[t.Store]
			switch {
			case t.Store == "":
				return fieldErr(field+".store", "empty: a segment tag needs a store")
			case !ok:
				return fieldErr(field+".store", "no store named %q under stores", t.Store)
			case s.Type == StoreEtcd:
				return fieldErr(field+".store", "store %q is etcd, which holds leases, not segments (use sqlite, postgres, mysql or redis)", t.Store)
			}
			if t.Step < 0 || t.MinStep < 0 || t.MaxStep < 0 {
				return fieldErr(field+".step", "steps must not be negative")
			}
			switch t.Schema {
			case "", SchemaIdgen:
				if t.Table != "" {
					return fieldErr(field+".table", "a tag on idgen's own table uses the store's segment_table: table names a peer's (schema leaf or tinyid)")
				}
			case SchemaLeaf, SchemaTinyid:
				if s.Type != StorePostgres && s.Type != StoreMySQL {
					return fieldErr(field+".schema", "%s's table is on postgres or mysql, and store %q is %s", t.Schema, t.Store, s.Type)
				}
				if t.Table != "" && sqldb.CheckTable(t.Table) != nil {
					return fieldErr(field+".table", "%q: want name or schema.name, each 1 to 63 ASCII letters, digits or '_', not starting with a digit", t.Table)
				}
			default:
				return fieldErr(field+".schema", "unknown schema %q (want idgen, leaf or tinyid)", t.Schema)
			}
			for _, f := range []struct {
				name string
				v    int64
			}{{"step", t.Step}, {"min_step", t.MinStep}, {"max_step", t.MaxStep}} {
				if f.v > MaxStep {
					return fieldErr(field+"."+f.name, "%d: at most %d (MaxStep)", f.v, MaxStep)
				}
			}
			// The allocator's own rule, applied here so that the file and line are named
			// before any store is opened.
			if err := segment.CheckOptions(segment.Options{Step: t.Step, MinStep: t.MinStep, MaxStep: t.MaxStep}); err != nil {
				name := "max_step"
				switch {
				case t.Step > 0:
					name = "step"
				case t.MinStep > 0:
					name = "min_step"
				}
				return fieldErr(field+"."+name, "step %d, min_step %d, max_step %d: %v", t.Step, t.MinStep, t.MaxStep, err)
			}
		case KindNumber:
			needSnowflake = field
			z, err := LoadZone(t.Zone)
			if err != nil {
				return fieldErr(field+".zone", "%v", err)
			}
			c.Tags[i].Location = z
			spec := number.Spec{Prefix: t.Prefix, Time: t.Time, Zone: z, Layout: layout, Check: t.Check}
			if _, err := number.Compile(spec); err != nil {
				return fieldErr(field, "%v", err)
			}
		case KindTypeID, KindUUID7:
			if t.Floor != nil {
				return fieldErr(field+".floor", "a %s tag's IDs are random, not counted: a floor applies to snowflake, number and segment tags", t.Kind)
			}
			if t.Kind == KindUUID7 {
				break
			}
			if err := typeid.ValidPrefix(t.Prefix); err != nil {
				return fieldErr(field+".prefix", "%v", err)
			}
		case "":
			return fieldErr(field+".kind", "empty: want snowflake, segment, number, uuid7 or typeid")
		default:
			return fieldErr(field+".kind", "unknown kind %q (want snowflake, segment, number, uuid7 or typeid)", t.Kind)
		}
	}
	if len(c.Tags) == 0 {
		return fieldErr("tags", "none configured: an ID service needs at least one tag")
	}
	if c.LeafSnowflakeTag != "" {
		i := slices.IndexFunc(c.Tags, func(t Tag) bool { return t.Name == c.LeafSnowflakeTag })
		if i < 0 || c.Tags[i].Kind != KindSnowflake {
			return fieldErr("leaf_snowflake_tag", "%q is not a snowflake tag under tags", c.LeafSnowflakeTag)
		}
	}

	if needSnowflake != "" && c.Snowflake == nil {
		return fieldErr("snowflake", "missing: %s needs the snowflake section (layout and lease)", needSnowflake)
	}
	if c.Snowflake != nil {
		sf := c.Snowflake
		if layoutErr != nil {
			return fieldErr("snowflake.layout", "%v", layoutErr)
		}
		sf.Parsed = layout
		if err := c.checkFloor("snowflake.floor", sf.Floor); err != nil {
			return err
		}
		l := sf.Lease
		switch {
		case l.Worker != nil && l.Store != "":
			return fieldErr("snowflake.lease", "store and worker exclude each other: lease a worker ID from a store, or set a static one")
		case l.Worker != nil:
			if *l.Worker < 0 || *l.Worker > layout.MaxWorker() {
				return fieldErr("snowflake.lease.worker", "%d out of range [0, %d] of layout %s", *l.Worker, layout.MaxWorker(), sf.Layout)
			}
		case l.Store == "":
			return fieldErr("snowflake.lease.store", "empty: name a store to lease worker IDs from, or set a static worker")
		default:
			if _, ok := c.Stores[l.Store]; !ok {
				return fieldErr("snowflake.lease.store", "no store named %q under stores", l.Store)
			}
		}
		maxW := l.MaxWorker
		if maxW == 0 {
			maxW = layout.MaxWorker()
		}
		switch {
		case l.MaxWorker < 0 || l.MaxWorker > layout.MaxWorker():
			return fieldErr("snowflake.lease.max_worker", "%d out of range [0, %d] of layout %s", l.MaxWorker, layout.MaxWorker(), sf.Layout)
		case l.MinWorker < 0 || l.MinWorker > maxW:
			return fieldErr("snowflake.lease.min_worker", "%d out of range [0, max_worker %d]", l.MinWorker, maxW)
		case l.Worker != nil && (*l.Worker < l.MinWorker || (l.MaxWorker > 0 && *l.Worker > l.MaxWorker)):
			return fieldErr("snowflake.lease.worker", "%d is outside min_worker %d to max_worker %d", *l.Worker, l.MinWorker, maxW)
		}
		if l.TTL < 0 || l.Margin < 0 || l.Skew < 0 {
			return fieldErr("snowflake.lease", "ttl, margin and skew must not be negative")
		}
	}

	tokenNames := map[string]int{}
	for i, t := range c.Tokens {
		field := fmt.Sprintf("tokens[%d]", i)
		// The name (field's own when unnamed) signs the console's sessions and the
		// change log's entries: one token's.
		name := t.Name
		if name == "" {
			name = field
		}
		if j, dup := tokenNames[name]; dup {
			return fieldErr(field+".name", "%q names tokens[%d] already: a name identifies one token", name, j)
		}
		tokenNames[name] = i
		secret, err := t.read()
		if err != nil {
			return fieldErr(field, "%v", err)
		}
		c.Tokens[i].secret, c.Tokens[i].loaded = secret, true
		if len(secret) < MinTokenLen {
			return fieldErr(field+".token", "shorter than %d bytes: a token is a secret (openssl rand -hex 32)", MinTokenLen)
		}
		for j, tag := range t.Tags {
			if !names[tag] {
				return fieldErr(fmt.Sprintf("%s.tags[%d]", field, j), "no tag named %q under tags", tag)
			}
		}
		if t.Admin && len(t.Tags) > 0 {
			return fieldErr(field+".admin", "an admin token changes every tag: leave its tags empty (it grants all)")
		}
	}
	if c.Console.RateInterval < 0 {
		return fieldErr("console.rate_interval", "%v is negative", c.Console.RateInterval)
	}
	if c.TagStore != "" {
		s, ok := c.Stores[c.TagStore]
		switch {
		case !ok:
			return fieldErr("tag_store", "no store named %q under stores", c.TagStore)
		case s.Type == StoreEtcd:
			return fieldErr("tag_store", "store %q is etcd, which holds leases, not segments (use sqlite, postgres, mysql or redis)", c.TagStore)
		}
	}
	if len(c.Tokens) == 0 && !c.Insecure && slices.Contains(c.CORS.AllowedOrigins, "*") {
		return fieldErr("cors.allowed_origins", "\"*\" on a server without tokens lets a page on any site take IDs from it (a developer's loopback server included): name the origins, add tokens, or set insecure: true to serve every origin anyway")
	}
	if len(c.Tokens) == 0 && !c.Insecure && !Loopback(host) {
		return fieldErr("listen", "%s is not a loopback address and no token is configured: add tokens, or pass --insecure to serve every tag to anyone who reaches it", c.Listen)
	}
	return nil
}

// DefaultAdvertise is the base URL derived from a listen address (host:port): that host
// and port when the host is named (a loopback or a concrete address), os.Hostname() and
// the port when it is a wildcard (0.0.0.0, [::] or empty); https when tls is on.
func DefaultAdvertise(listen string, tls bool) string {
	scheme := "http"
	if tls {
		scheme = "https"
	}
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return scheme + "://" + listen
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		if h, err := os.Hostname(); err == nil && h != "" {
			host = h
		} else {
			host = "localhost"
		}
	}
	return scheme + "://" + net.JoinHostPort(host, port)
}

// BaseURL checks s as the base URL of an instance (http or https, a host, no user,
// query or fragment) and returns it without a trailing slash.
func BaseURL(s string) (string, error) {
	if !strings.HasPrefix(s, "http://") && !strings.HasPrefix(s, "https://") {
		return "", fmt.Errorf("%q: want a base URL starting http:// or https://", s)
	}
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return "", fmt.Errorf("%q is not a URL: %v", s, err)
	case u.Host == "" || u.Hostname() == "":
		return "", fmt.Errorf("%q: no host: want http://host:port", s)
	case u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "":
		return "", fmt.Errorf("%q: want scheme, host, port and optionally a path, nothing else", s)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return "", fmt.Errorf("%q: port %s out of range", s, p)
		}
	}
	return strings.TrimRight(s, "/"), nil
}

// ServerTableName returns the SQL table of the servers' records: ServerTable, or the
// lease table (LeaseTable or lease.DefaultTable) with "_servers" added.
func (s Store) ServerTableName() string {
	if s.ServerTable != "" {
		return s.ServerTable
	}
	return cmp.Or(s.LeaseTable, lease.DefaultTable) + "_servers"
}

// ChangeTableName returns the SQL table of the segment tags' change log: the segment
// table (SegmentTable or segment.DefaultTable) with "_changes" added.
func (s Store) ChangeTableName() string {
	return cmp.Or(s.SegmentTable, segment.DefaultTable) + "_changes"
}

// SetListen sets Listen to addr (the address a listener got, such as a port chosen by
// the system for ":0") and derives Advertise again unless it was configured. A host
// named in the configured listen address (localhost, idgen-1.internal) is kept: only the
// port comes from addr, so the advertised URL stays the name clients and certificates
// use rather than the IP it resolved to.
func (c *Config) SetListen(addr string) {
	if host, _, err := net.SplitHostPort(c.Listen); err == nil && host != "" {
		if _, port, err := net.SplitHostPort(addr); err == nil {
			addr = net.JoinHostPort(host, port)
		}
	}
	c.Listen = addr
	if c.advertiseDerived || c.Advertise == "" {
		c.Advertise, c.advertiseDerived = DefaultAdvertise(addr, c.TLS.Cert != ""), true
	}
}

// Secret returns the token's secret: the one read from Token, TokenFile or TokenEnv when
// the configuration was parsed (Parse, Load), without reading the file or the variable
// again. A Token not from a parsed configuration has only its inline Token: with
// TokenFile or TokenEnv it is an error.
func (t Token) Secret() (string, error) {
	if t.loaded {
		return t.secret, nil
	}
	if t.TokenFile != "" || t.TokenEnv != "" {
		return "", errors.New("token_file and token_env are read when the configuration is parsed: this token was not")
	}
	if t.Token == "" {
		return "", errors.New("set exactly one of token, token_file and token_env")
	}
	return t.Token, nil
}

// read reads the token's secret from Token, TokenFile or TokenEnv (exactly one).
func (t Token) read() (string, error) {
	set := 0
	for _, s := range []string{t.Token, t.TokenFile, t.TokenEnv} {
		if s != "" {
			set++
		}
	}
	if set != 1 {
		return "", errors.New("set exactly one of token, token_file and token_env")
	}
	switch {
	case t.TokenFile != "":
		b, err := os.ReadFile(t.TokenFile)
		if err != nil {
			return "", fmt.Errorf("token_file: %w", err)
		}
		return strings.TrimSpace(string(b)), nil
	case t.TokenEnv != "":
		v, ok := os.LookupEnv(t.TokenEnv)
		if !ok {
			return "", fmt.Errorf("token_env: %s is not set", t.TokenEnv)
		}
		return v, nil
	}
	return t.Token, nil
}

// Loopback reports whether host (of a listen address) is a loopback name or address.
// The empty host listens on every interface.
func Loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// LoadZone reads a zone: an IANA name, "UTC", or a fixed offset "+08:00".
func LoadZone(s string) (*time.Location, error) {
	if s == "" || s == "UTC" || s == "Z" {
		return time.UTC, nil
	}
	if s[0] == '+' || s[0] == '-' {
		t, err := time.Parse("-07:00", s)
		if err != nil {
			return nil, fmt.Errorf("zone %q: want an IANA name or an offset such as +08:00", s)
		}
		_, off := t.Zone()
		return time.FixedZone(s, off), nil
	}
	z, err := time.LoadLocation(s)
	if err != nil {
		return nil, fmt.Errorf("zone %q: %w", s, err)
	}
	return z, nil
}

// TagNames returns the names of the configured tags, in order.
func (c *Config) TagNames() []string {
	out := make([]string, len(c.Tags))
	for i, t := range c.Tags {
		out[i] = t.Name
	}
	return out
}

// HasTag reports whether a tag named name is configured.
func (c *Config) HasTag(name string) bool { return slices.Contains(c.TagNames(), name) }
