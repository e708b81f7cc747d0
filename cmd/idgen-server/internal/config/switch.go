package config

import (
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/idgen/idgen/runtime/snowflake"
)

// LayoutText is a snowflake layout as configured: a preset name ("leaf", "sonyflake-v1";
// snowflake.PresetNames), the fields snowflake.ParseLayout reads
// ("epoch=1288834974657,unit=1ms,bits=41/10/12"), or a mapping of them:
//
//	layout:
//	  preset: sonyflake-v1     # optional: the fields below change it
//	  epoch: 2014-09-01        # RFC 3339, a date (UTC) or Unix milliseconds
//	  unit: 10ms
//	  bits: 39/16/8            # time/worker/sequence
//	  order: time-seq-worker   # or time-worker-seq (the default)
//	  datacenter: 0
//	  width: 63
//
// It holds the text form either way.
type LayoutText string

// UnmarshalYAML implements yaml.Unmarshaler: a scalar, or a mapping of the fields.
func (l *LayoutText) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		*l = LayoutText(n.Value)
		return nil
	case yaml.MappingNode:
		var m struct {
			Preset     string `yaml:"preset"`
			Epoch      string `yaml:"epoch"`
			Unit       string `yaml:"unit"`
			Bits       string `yaml:"bits"`
			Order      string `yaml:"order"`
			Datacenter *int   `yaml:"datacenter"`
			Width      *int   `yaml:"width"`
		}
		if err := n.Decode(&m); err != nil {
			return err
		}
		var f []string
		if m.Preset != "" {
			f = append(f, m.Preset)
		}
		for _, kv := range [][2]string{{"epoch", m.Epoch}, {"unit", m.Unit}, {"bits", m.Bits}, {"order", m.Order}} {
			if kv[1] != "" {
				f = append(f, kv[0]+"="+kv[1])
			}
		}
		if m.Datacenter != nil {
			f = append(f, "datacenter="+strconv.Itoa(*m.Datacenter))
		}
		if m.Width != nil {
			f = append(f, "width="+strconv.Itoa(*m.Width))
		}
		*l = LayoutText(strings.Join(f, ","))
		return nil
	}
	return lineErr(n, "layout: want a preset name, fields as text, or a mapping of preset, epoch, unit, bits, order")
}

// Floor is the highest ID already issued, by the system idgen continues: a number, or a
// query run at start on an SQL store that returns one (SELECT max(id) FROM orders). A
// snowflake generator whose next ID would not be above it, or a segment tag whose first
// block would not start above it, refuses to start.
//
//	floor: 1853829473929216000
//	floor: {store: app, query: "SELECT max(id) FROM orders"}
type Floor struct {
	// ID is the floor given as a number.
	ID int64 `yaml:"id"`
	// Store names an SQL store (sqlite, postgres or mysql) and Query the statement run on
	// it at start: one row, one integer column (NULL, from an empty table, is 0).
	Store string `yaml:"store"`
	Query string `yaml:"query"`
}

// UnmarshalYAML implements yaml.Unmarshaler: a number, or a mapping.
func (f *Floor) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		v, err := strconv.ParseInt(n.Value, 10, 64)
		if err != nil {
			return lineErr(n, "floor %q: want the highest ID issued (a non-negative integer) or {store, query}", n.Value)
		}
		f.ID = v
		return nil
	}
	type plain Floor
	return n.Decode((*plain)(f))
}

// String describes the floor for messages.
func (f Floor) String() string {
	if f.Query != "" {
		return fmt.Sprintf("%q on store %q", f.Query, f.Store)
	}
	return strconv.FormatInt(f.ID, 10)
}

// checkFloor validates f, at field, against the stores of c.
func (c *Config) checkFloor(field string, f *Floor) error {
	if f == nil {
		return nil
	}
	switch {
	case f.ID < 0:
		return fieldErr(field, "%d is negative: want the highest ID already issued", f.ID)
	case f.Query == "" && f.Store != "":
		return fieldErr(field+".query", "empty: a floor from store %q needs the query that finds it (SELECT max(id) FROM ...)", f.Store)
	case f.Query != "" && f.ID != 0:
		return fieldErr(field, "give the floor as a number or as a query, not both")
	case f.Query != "":
		s, ok := c.Stores[f.Store]
		switch {
		case f.Store == "":
			return fieldErr(field+".store", "empty: name the SQL store the query runs on")
		case !ok:
			return fieldErr(field+".store", "no store named %q under stores", f.Store)
		case s.Type != StoreSQLite && s.Type != StorePostgres && s.Type != StoreMySQL:
			return fieldErr(field+".store", "store %q is %s: a floor query runs on sqlite, postgres or mysql", f.Store, s.Type)
		}
		if q := strings.ToUpper(strings.TrimSpace(f.Query)); !strings.HasPrefix(q, "SELECT") && !strings.HasPrefix(q, "WITH") {
			return fieldErr(field+".query", "%q: want a SELECT returning the highest ID issued", f.Query)
		}
	}
	return nil
}

// Layout returns the snowflake layout s names: a preset or fields
// (snowflake.ParseLayout); "" is DefaultLayout.
func Layout(s string) (snowflake.Layout, error) {
	if strings.TrimSpace(s) == "" {
		s = DefaultLayout
	}
	l, err := snowflake.ParseLayout(s)
	if err != nil {
		return snowflake.Layout{}, fmt.Errorf("%s", strings.TrimPrefix(err.Error(), "snowflake: "))
	}
	return l, nil
}

// lineErr is an error of a custom decoder in the form yaml.v3's own take, so that
// decodeError reports its line.
func lineErr(n *yaml.Node, format string, args ...any) error {
	return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: ", n.Line) + fmt.Sprintf(format, args...)}}
}
