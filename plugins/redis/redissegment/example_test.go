package redissegment_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/idgen/idgen/plugins/redis/redissegment"
	"github.com/idgen/idgen/runtime/segment"
)

// A Store on Redis: New refuses a server that may forget its keys (the AOF off) with a
// *NotPersistentError, since a counter that goes back repeats IDs.
func ExampleNew() {
	ctx := context.Background()
	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"})
	defer client.Close()
	store, err := redissegment.New(ctx, client, redissegment.Options{}) // keys idgen:segment:<tag>
	var npe *redissegment.NotPersistentError
	if errors.As(err, &npe) {
		fmt.Println("refused:", npe.Addr, npe.Reason)
		return
	}
	if err != nil {
		panic(err)
	}
	orders, err := segment.New(store, "order", segment.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(orders.NextInt64(ctx))
}
