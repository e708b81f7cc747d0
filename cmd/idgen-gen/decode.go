package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/idgen/idgen/runtime/codec"
	"github.com/idgen/idgen/runtime/snowflake"
)

// runDecode prints the time, worker and sequence of an ID.
func runDecode(stdout, stderr io.Writer, args []string) error {
	fs := flag.NewFlagSet("idgen-gen decode", flag.ContinueOnError)
	fs.SetOutput(stderr)
	name := fs.String("layout", "classic", "layout: a preset ("+strings.Join(snowflake.PresetNames(), ", ")+
		") or fields, as epoch=1288834974657,unit=1ms,bits=41/10/12[,order=time-seq-worker]")
	fs.Usage = func() {
		fmt.Fprint(stderr, "usage: idgen-gen decode [-layout classic] ID\n\nPrints when, on which worker and in what order an ID was made.\nID is decimal or prefixed (usr_0e1kz8d3t2c00).\n\nFlags:\n")
		fs.PrintDefaults()
	}
	// Accept the flag after the ID too: "decode 123 -layout sonyflake".
	var ids []string
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			if err == flag.ErrHelp {
				return nil
			}
			return errUsage
		}
		if fs.NArg() == 0 {
			break
		}
		ids = append(ids, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(ids) != 1 {
		fs.Usage()
		return errUsage
	}
	layout, err := snowflake.ParseLayout(*name)
	if err != nil {
		return fmt.Errorf("decode: %w", err)
	}
	v, err := parseAnyID(ids[0])
	if err != nil {
		return fmt.Errorf("decode: %w", err)
	}
	p, err := layout.Decode(snowflake.ID(v))
	if err != nil {
		return fmt.Errorf("decode: %w", err)
	}
	at := layout.TimeOf(p.Tick)
	fmt.Fprintf(stdout, "id        %d\n", v)
	fmt.Fprintf(stdout, "layout    %s (%v)\n", layout.Spec(), layout)
	fmt.Fprintf(stdout, "time      %s\n", at.UTC().Format("2006-01-02 15:04:05.000 MST"))
	fmt.Fprintf(stdout, "          %s (local)\n", at.Local().Format("2006-01-02 15:04:05.000 MST"))
	fmt.Fprintf(stdout, "tick      %d (%v since %s)\n", p.Tick, at.Sub(layout.Epoch).Round(time.Millisecond), layout.Epoch.UTC().Format(time.DateOnly))
	if layout.DatacenterBits > 0 {
		fmt.Fprintf(stdout, "worker    %d (datacenter %d, machine %d)\n", p.Worker, p.Datacenter, p.Machine)
	} else {
		fmt.Fprintf(stdout, "worker    %d\n", p.Worker)
	}
	fmt.Fprintf(stdout, "sequence  %d\n", p.Seq)
	return nil
}

// parseAnyID reads a decimal ID or a prefixed one (any prefix).
func parseAnyID(s string) (int64, error) {
	if i := strings.LastIndexByte(s, '_'); i > 0 {
		return codec.ParsePrefixed("ID", s[:i], s)
	}
	return codec.ParseInt64("ID", s)
}
