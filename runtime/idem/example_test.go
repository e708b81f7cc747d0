package idem_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/idgen/idgen/runtime/idem"
)

// Once for a queue consumer: a redelivered message is not processed again.
func ExampleOnce() {
	store := idem.NewMemory()
	ctx := context.Background()
	handle := func(ctx context.Context) error {
		fmt.Println("charging the card")
		return nil
	}
	for range 2 { // the message and its redelivery
		if err := idem.Once(ctx, store, "msg-42", handle, idem.OnceOptions{}); err != nil {
			fmt.Println(err)
		}
	}
	// Output:
	// charging the card
}

// One store for the middleware and Once: a message ID is never a request's key, however
// it is spelt, so what a store holds for a message is read under OnceKey.
func ExampleOnceKey() {
	store := idem.NewMemory()
	ctx := context.Background()
	mw, err := idem.New(idem.Config{Store: store, Scope: idem.SingleTenant})
	if err != nil {
		panic(err)
	}
	h := mw.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k, _ := idem.KeyFrom(r.Context())
		fmt.Println("request stored as", k.Scoped)
		w.WriteHeader(http.StatusCreated)
	}))
	req := httptest.NewRequest(http.MethodPost, "/orders", strings.NewReader("{}"))
	req.Header.Set("Idempotency-Key", "order-1")
	h.ServeHTTP(httptest.NewRecorder(), req)

	err = idem.Once(ctx, store, "order-1", func(ctx context.Context) error {
		k, _ := idem.KeyFrom(ctx)
		fmt.Println("message stored as", k.Scoped)
		return nil
	}, idem.OnceOptions{})
	fmt.Println(err)
	rec, err := store.Get(ctx, idem.OnceKey("order-1"))
	fmt.Println(rec.State, err)
	// Output:
	// request stored as 0::order-1
	// message stored as once:order-1
	// <nil>
	// completed <nil>
}

// New refuses a Config without a Scope: sharing keys across callers must be a choice.
func ExampleSingleTenant() {
	_, err := idem.New(idem.Config{Store: idem.NewMemory()})
	fmt.Println(errors.Is(err, idem.ErrNoScope))
	_, err = idem.New(idem.Config{Store: idem.NewMemory(), Scope: idem.SingleTenant})
	fmt.Println(err)
	// Output:
	// true
	// <nil>
}
