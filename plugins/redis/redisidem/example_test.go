package redisidem_test

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idgen/idgen/plugins/redis/redisidem"
	"github.com/idgen/idgen/runtime/idem"
)

// ExampleNew needs a Redis with persistence (appendonly yes), so it is compiled and
// not run.
func ExampleNew() {
	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"})
	defer client.Close()
	ctx := context.Background()
	store, err := redisidem.New(ctx, client, redisidem.Options{Prefix: "orders:idem:"})
	if err != nil {
		fmt.Println(err) // a *NotPersistentError for a Redis that would forget
		return
	}
	token, held, err := store.Claim(ctx, "tenant-1:order-42", "fingerprint", time.Minute)
	switch {
	case err != nil:
		fmt.Println(err)
	case held != nil:
		fmt.Println("held:", held.State)
	default:
		err = store.Complete(ctx, "tenant-1:order-42", token, idem.Response{Status: 201}, 24*time.Hour)
		fmt.Println("completed:", err)
	}
}
