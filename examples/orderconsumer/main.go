package main

import (
	"context"
	"errors"
	"flag"
	"log"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("orderconsumer: ")
	var cfg config
	flag.StringVar(&cfg.AMQP, "amqp", "amqp://guest:guest@127.0.0.1:5672/", "RabbitMQ `url`")
	flag.StringVar(&cfg.Queue, "queue", "orders", "queue to consume")
	flag.StringVar(&cfg.DB, "db", "orders.db", "SQLite `file` of the orders")
	addr := flag.String("listen", "127.0.0.1:9464", "`address` of /metrics")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	s, err := newService(ctx, cfg)
	if err != nil {
		log.Fatal(err)
	}
	srv := &http.Server{Addr: *addr, Handler: routes(s), ReadHeaderTimeout: 5 * time.Second}
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

// routes serves the service's HTTP endpoints: GET /metrics, for Prometheus.
func routes(s *service) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", s.Metrics)
	return mux
}
