package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

// passwordEnv names the variable that holds the RabbitMQ password when no
// -amqp-password-file is given.
const passwordEnv = "ORDERCONSUMER_AMQP_PASSWORD"

func main() {
	log.SetFlags(0)
	log.SetPrefix("orderconsumer: ")
	cfg, addr, err := configure(os.Args[1:], os.Getenv)
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(2)
	}
	if err != nil {
		log.Fatal(err)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	s, err := newService(ctx, cfg)
	if err != nil {
		log.Fatal(err)
	}
	srv := &http.Server{Addr: addr, Handler: routes(s), ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Print(err)
			stop()
		}
	}()
	err = s.Run(ctx)
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	srv.Shutdown(shutdown)
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		log.Fatal(err)
	}
}

// configure reads the command line and the environment (getenv). The RabbitMQ password
// is never a flag, which every user of the machine sees in the process list: -amqp is
// refused when its URL carries one, and the password comes from the file
// -amqp-password-file names, or else from $ORDERCONSUMER_AMQP_PASSWORD.
func configure(args []string, getenv func(string) string) (cfg config, addr string, err error) {
	fs := flag.NewFlagSet("orderconsumer", flag.ContinueOnError)
	raw := fs.String("amqp", "amqp://guest@127.0.0.1:5672/", "RabbitMQ `url`, without a password")
	passwordFile := fs.String("amqp-password-file", "", "`file` holding the RabbitMQ password (else $"+passwordEnv+")")
	fs.StringVar(&cfg.Queue, "queue", "orders", "queue to consume")
	fs.StringVar(&cfg.DB, "db", "orders.db", "SQLite `file` of the orders")
	fs.StringVar(&addr, "listen", "127.0.0.1:9464", "`address` of /metrics")
	if err := fs.Parse(args); err != nil {
		return cfg, "", err
	}
	if fs.NArg() > 0 {
		return cfg, "", fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	cfg.AMQP, err = amqpURL(*raw, *passwordFile, getenv)
	return cfg, addr, err
}

// amqpURL returns raw with the password from passwordFile (its first line), or else from
// the environment, if either holds one. Its errors never quote the URL, which may hold a
// password.
func amqpURL(raw, passwordFile string, getenv func(string) string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "", errors.New("-amqp: not a URL such as amqp://user@host:5672/")
	}
	if _, set := u.User.Password(); set {
		return "", errors.New("-amqp carries a password, which the process list shows to every user: " +
			"put it in a file named by -amqp-password-file, or in $" + passwordEnv)
	}
	password := getenv(passwordEnv)
	if passwordFile != "" {
		f, err := os.Open(passwordFile)
		if err != nil {
			return "", fmt.Errorf("-amqp-password-file: %w", err)
		}
		defer f.Close()
		b, err := io.ReadAll(io.LimitReader(f, 4096))
		if err != nil {
			return "", fmt.Errorf("-amqp-password-file: %w", err)
		}
		password, _, _ = strings.Cut(string(b), "\n")
		password = strings.TrimSuffix(password, "\r")
		if password == "" {
			return "", fmt.Errorf("-amqp-password-file %s: no password on its first line", passwordFile)
		}
	}
	if password == "" {
		return raw, nil
	}
	user := "guest"
	if u.User != nil {
		user = u.User.Username()
	}
	u.User = url.UserPassword(user, password)
	return u.String(), nil
}

// routes serves the service's HTTP endpoints: GET /metrics, for Prometheus.
func routes(s *service) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", s.Metrics)
	return mux
}
