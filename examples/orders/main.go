// Command orders is an HTTP order service on embedded SQLite that puts idgen together:
// POST /orders with an Idempotency-Key header creates an order once however often the
// client retries; GORM's idgen plugin gives the order its snowflake ID and its order number;
// GET /orders/{no} reads one back.
//
//	go run ./examples/orders -addr 127.0.0.1:8080
//	curl -s -X POST -H 'Idempotency-Key: k1' -H 'X-Account: acme' -d '{"cents":1999}' localhost:8080/orders
//	curl -s -H 'X-Account: acme' localhost:8080/orders/ORD...
//
// The X-Account header stands in for authentication. Keys are per account: the order
// table's unique key is (account, request_id), the middleware scopes its keys the same way,
// and an account reads only its own orders (another's is 404, like a missing one). Client
// mistakes are 4xx with a JSON body (application/problem+json); a database failure is a
// generic 500, its error logged, never sent.
package main

import (
	"context"
	"errors"
	"flag"
	"log"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("orders: ")
	addr := flag.String("addr", "127.0.0.1:8080", "listen address")
	dbPath := flag.String("db", "", "SQLite file (default: a temporary one, removed on exit)")
	flag.Parse()
	// SIGINT and SIGTERM stop the server gracefully, so run returns and its deferred
	// cleanup (the temporary database) runs; log.Fatal would skip it.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *addr, *dbPath); err != nil {
		log.Fatal(err)
	}
}

// run serves until ctx is done, then shuts the server down and returns.
func run(ctx context.Context, addr, dbPath string) error {
	if dbPath == "" {
		dir, err := os.MkdirTemp("", "idgen-orders-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		dbPath = filepath.Join(dir, "orders.db")
	}
	s, err := newService(context.Background(), dbPath, slog.Default())
	if err != nil {
		return err
	}
	defer s.Close()
	srv := &http.Server{Addr: addr, Handler: s, ReadHeaderTimeout: 5 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.ListenAndServe() }()
	log.Printf("listening on %s, database %s", addr, dbPath)
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	log.Print("stopping")
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		return err
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
