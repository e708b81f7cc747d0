// Command idgen-server hands out IDs to every language in a fleet: snowflake IDs under a
// leased worker ID, dense segment IDs (Leaf's segment mode), business numbers, UUIDv7
// and TypeIDs, over gRPC, gRPC-Web and Connect (HTTP/JSON) on one port, plus Leaf's
// plain-text paths, /healthz, /readyz, grpc.health.v1, Prometheus /metrics and a web
// console at / (the fleet, the tags' buffers, a decoder of IDs).
//
// With no configuration it serves the embedded default at once: loopback only, an
// SQLite file for segments and for the worker-ID lease, and prints a curl line that
// works:
//
//	go run github.com/idgen/idgen/cmd/idgen-server@latest
//
// Configuration is a YAML file (-config; -print-default prints the default as a start),
// then IDGEN_* environment variables, then flags. The README beside this file is the
// manual.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	_ "time/tzdata" // zones for Decode in images without /usr/share/zoneinfo

	"github.com/idgen/idgen"
	"github.com/idgen/idgen/cmd/idgen-server/internal/config"
	"github.com/idgen/idgen/cmd/idgen-server/internal/console"
	"github.com/idgen/idgen/cmd/idgen-server/internal/server"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		if errors.Is(err, errHelp) {
			os.Exit(2)
		}
		fmt.Fprintln(os.Stderr, "idgen-server:", err)
		os.Exit(1)
	}
}

var errHelp = errors.New("help")

func run(args []string) error {
	if len(args) > 0 && args[0] == "check" {
		return runCheck(args[1:], os.Stdout, os.Stderr)
	}
	cfg, opts, err := config.Load(args, os.LookupEnv, os.Stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return errHelp
		}
		return err
	}
	if opts.Version {
		_, err := fmt.Println("idgen-server", idgen.Version)
		return err
	}
	if opts.PrintDefault {
		_, err := os.Stdout.Write(config.Default())
		return err
	}
	level := slog.LevelInfo
	level.UnmarshalText([]byte(cfg.Log.Level))
	log := slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	slog.SetDefault(log)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	// Listen first, so a port in use fails before a worker ID is claimed.
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return err
	}
	// The port the system chose for ":0", in the URL the fleet finds this instance at.
	cfg.SetListen(ln.Addr().String())
	srv, err := server.New(ctx, cfg, log)
	if err != nil {
		ln.Close()
		return err
	}
	if cfg.ConsoleOn() {
		con, err := console.New(srv, log)
		if err != nil {
			srv.Shutdown(ctx)
			ln.Close()
			return err
		}
		con.Mount(srv.Mux())
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()

	scheme := "http"
	if cfg.TLS.Cert != "" {
		scheme = "https"
	}
	addr := ln.Addr().String()
	log.Info("serving", "addr", addr, "advertise", cfg.Advertise, "config", cfg.Source, "tags", cfg.TagNames())
	if cfg.Source == "default" {
		// The one line a newcomer needs; on stdout, apart from the JSON log.
		fmt.Printf("idgen-server: serving the embedded default on %s://%s; try:\n  %s\n", scheme, addr, CurlLine(scheme+"://"+addr, cfg.Tags[0].Name))
	}

	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	stop()
	log.Info("shutting down", "drain", cfg.Drain)
	sctx, cancel := context.WithTimeout(context.Background(), cfg.Drain)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return err
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	log.Info("stopped")
	return nil
}

// CurlLine is the command that takes an ID of tag from the server at base over Connect's
// JSON.
func CurlLine(base, tag string) string {
	return fmt.Sprintf(`curl -sS -H 'Content-Type: application/json' -d '{"tag":"%s"}' %s/idgen.v1.IDService/Next`, tag, base)
}
