package redislease_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/idgen/idgen/plugins/redis/redislease"
	"github.com/idgen/idgen/runtime/lease"
	"github.com/idgen/idgen/runtime/snowflake"
)

// A backend on Redis: New refuses a server that may forget its keys (the AOF off)
// with a *NotPersistentError, since a forgotten lease is handed to a second holder.
func ExampleNew() {
	ctx := context.Background()
	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"})
	defer client.Close()
	backend, err := redislease.New(ctx, client, redislease.Options{}) // hashes idgen:lease:*
	var npe *redislease.NotPersistentError
	if errors.As(err, &npe) {
		fmt.Println("refused:", npe.Addr, npe.Reason)
		return
	}
	if err != nil {
		panic(err)
	}
	l, err := lease.Acquire(ctx, backend, lease.Config{Layout: snowflake.Classic()})
	if err != nil {
		panic(err)
	}
	defer l.Close(ctx)
	fmt.Println(l.Next())
}
