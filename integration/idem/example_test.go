package idem_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	_ "modernc.org/sqlite"

	"github.com/idgen/idgen/runtime/idem"
	"github.com/idgen/idgen/runtime/sqldb"
)

// accountOf stands in for authentication: the caller's account.
func accountOf(r *http.Request) (string, error) {
	if a := r.Header.Get("X-Account"); a != "" {
		return a, nil
	}
	return "", errors.New("not signed in")
}

// The middleware on an SQL store: a retried POST with the same Idempotency-Key runs the
// handler once and replays its response.
func ExampleNew() {
	db, err := sql.Open("sqlite", "file:example?mode=memory&cache=shared")
	if err != nil {
		panic(err)
	}
	defer db.Close()
	ctx := context.Background()
	store, err := idem.NewSQL(db, sqldb.SQLite, idem.SQLOptions{})
	if err != nil {
		panic(err)
	}
	if err := store.CreateTable(ctx); err != nil { // or put store.Schema() in your migrations
		panic(err)
	}
	mw, err := idem.New(idem.Config{
		Store:   store,
		Scope:   accountOf, // keys per caller; idem.SingleTenant only where callers may share keys
		Require: func(r *http.Request) bool { return r.URL.Path == "/orders" },
		Wait:    10 * time.Second, // a duplicate in flight waits instead of getting 409
	})
	if err != nil {
		panic(err)
	}
	orders := 0
	createOrder := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k, _ := idem.KeyFrom(r.Context()) // the key the middleware claimed, and the caller's scope
		orders++
		w.WriteHeader(http.StatusCreated)
		fmt.Fprintf(w, "order %d for %s (request %s)", orders, k.Scope, k.Value)
	})
	h := mw.Wrap(createOrder)

	for range 2 { // a request and its retry
		req := httptest.NewRequest(http.MethodPost, "/orders", strings.NewReader(`{"cents":1999}`))
		req.Header.Set("Idempotency-Key", "7c1e-order-1")
		req.Header.Set("X-Account", "acme")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		body, _ := io.ReadAll(rec.Body)
		fmt.Printf("%d %s replayed=%q\n", rec.Code, body, rec.Header().Get(idem.ReplayedHeader))
	}
	// Output:
	// 201 order 1 for acme (request 7c1e-order-1) replayed=""
	// 201 order 1 for acme (request 7c1e-order-1) replayed="true"
}
