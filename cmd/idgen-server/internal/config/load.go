package config

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// EnvPrefix starts the environment variable of every flag: --max-count is
// IDGEN_MAX_COUNT.
const EnvPrefix = "IDGEN_"

// Options are what the command line (or the environment) says beyond the file.
type Options struct {
	// File is the configuration file; empty for the embedded default.
	File string
	// PrintDefault asks for the embedded default to be printed instead of served.
	PrintDefault bool
	// Version asks for the release to be printed instead of served.
	Version bool
}

// overrides holds the flags that override fields of the file.
type overrides struct {
	listen, advertise, token, tokenFile, tlsCert, tlsKey, tlsClientCA, logLevel string
	corsOrigins                                                                 string
	insecure, console                                                           bool
	maxCount                                                                    int
	drain                                                                       time.Duration
}

// EnvName returns the environment variable of the flag name.
func EnvName(flagName string) string {
	return EnvPrefix + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// Load parses args (without the program name) and the environment (getenv), reads the
// file they name or the embedded default, and applies the overrides: flags over
// IDGEN_* variables over the file. Usage goes to usage on -h.
func Load(args []string, getenv func(string) (string, bool), usage io.Writer) (*Config, Options, error) {
	var o Options
	var ov overrides
	fs := flag.NewFlagSet("idgen-server", flag.ContinueOnError)
	fs.SetOutput(usage)
	fs.StringVar(&o.File, "config", "", "YAML configuration `file` (default: the embedded one, see -print-default)")
	fs.BoolVar(&o.PrintDefault, "print-default", false, "print the embedded default configuration and exit")
	fs.BoolVar(&o.Version, "version", false, "print the idgen release this server belongs to and exit")
	fs.StringVar(&ov.listen, "listen", "", "listen on `host:port` (overrides listen)")
	fs.StringVar(&ov.advertise, "advertise", "", "`base URL` other instances and the console reach this one at (overrides advertise; default from -listen)")
	fs.BoolVar(&ov.insecure, "insecure", false, "serve without any token on a non-loopback listen address, or to pages of any origin (cors \"*\")")
	fs.StringVar(&ov.token, "token", "", "a bearer token granting every tag (prefer IDGEN_TOKEN or -token-file: flags show in ps)")
	fs.StringVar(&ov.tokenFile, "token-file", "", "`file` holding a bearer token granting every tag")
	fs.StringVar(&ov.tlsCert, "tls-cert", "", "server certificate `file` (PEM)")
	fs.StringVar(&ov.tlsKey, "tls-key", "", "server key `file` (PEM)")
	fs.StringVar(&ov.tlsClientCA, "tls-client-ca", "", "require client certificates signed by the CAs in `file` (PEM)")
	fs.StringVar(&ov.logLevel, "log-level", "", "debug, info, warn or error")
	fs.IntVar(&ov.maxCount, "max-count", 0, "cap on the count of List and Range calls")
	fs.DurationVar(&ov.drain, "drain", 0, "how long in-flight calls get at shutdown")
	fs.BoolVar(&ov.console, "console", true, "serve the web console at / (overrides console.enabled)")
	fs.StringVar(&ov.corsOrigins, "cors-origins", "", "`origins` (comma-separated, or *) whose pages may call the API from a browser (overrides cors.allowed_origins)")
	fs.Usage = func() {
		fmt.Fprintf(usage, "usage: idgen-server [flags]\n\nServes IDs over gRPC, gRPC-Web, Connect and Leaf's HTTP paths on one port.\nEvery flag can also be set by its environment variable, IDGEN_ and the flag's name\nin capitals with '_' for '-' (IDGEN_LISTEN, IDGEN_TOKEN); flags win.\n\n"+
			"idgen-server check -h: read the system being replaced (Leaf, tinyid, bwmarrin, sonyflake,\nan auto-increment table) and print the configuration that continues it.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, o, err
	}
	if fs.NArg() > 0 {
		return nil, o, fmt.Errorf("config: unexpected argument %q (flags only)", fs.Arg(0))
	}
	set := map[string]bool{}
	from := map[string]string{} // flag name -> "flag -name" or the variable
	fs.Visit(func(f *flag.Flag) { set[f.Name], from[f.Name] = true, "flag -"+f.Name })
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		if err != nil || set[f.Name] {
			return
		}
		name := EnvName(f.Name)
		if v, ok := getenv(name); ok && v != "" {
			if e := fs.Set(f.Name, v); e != nil {
				err = &Error{Source: "environment", Field: name, Msg: fmt.Sprintf("invalid value %q: %v", v, e)}
			}
			set[f.Name], from[f.Name] = true, name
		}
	})
	if err != nil {
		return nil, o, err
	}
	if o.PrintDefault || o.Version {
		return nil, o, nil
	}

	source, data := "default", defaultYAML
	if o.File != "" {
		if data, err = os.ReadFile(o.File); err != nil {
			return nil, o, &Error{Source: o.File, Msg: err.Error()}
		}
		source = o.File
	}
	// Overrides are applied to the YAML before checking, so that a check sees them and
	// names the flag when one is wrong.
	origin := map[string]string{}
	for field, flagName := range fieldFlags {
		if o, ok := from[flagName]; ok {
			origin[field] = o
		}
	}
	c, err := parseWith(source, data, func(c *Config) {
		if set["listen"] {
			c.Listen = ov.listen
		}
		if set["advertise"] {
			c.Advertise = ov.advertise
		}
		if set["insecure"] {
			c.Insecure = ov.insecure
		}
		if set["token"] {
			c.Tokens = append(c.Tokens, Token{Name: "flag", Token: ov.token})
		}
		if set["token-file"] {
			c.Tokens = append(c.Tokens, Token{Name: "token-file", TokenFile: ov.tokenFile})
		}
		if set["tls-cert"] {
			c.TLS.Cert = ov.tlsCert
		}
		if set["tls-key"] {
			c.TLS.Key = ov.tlsKey
		}
		if set["tls-client-ca"] {
			c.TLS.ClientCA = ov.tlsClientCA
		}
		if set["log-level"] {
			c.Log.Level = ov.logLevel
		}
		if set["max-count"] {
			c.Limits.MaxCount = ov.maxCount
		}
		if set["drain"] {
			c.Drain = ov.drain
		}
		if set["console"] {
			c.Console.Enabled = &ov.console
		}
		if set["cors-origins"] {
			c.CORS.AllowedOrigins = splitOrigins(ov.corsOrigins)
		}
	}, origin)
	return c, o, err
}

// fieldFlags maps the fields flags override to the flags' names, so that an error in an
// overridden field names the flag (or its variable), not the file.
var fieldFlags = map[string]string{
	"listen": "listen", "advertise": "advertise", "tls.cert": "tls-cert", "tls.key": "tls-key",
	"tls.client_ca": "tls-client-ca", "log.level": "log-level", "limits.max_count": "max-count",
	"drain": "drain", "cors.allowed_origins": "cors-origins",
}
