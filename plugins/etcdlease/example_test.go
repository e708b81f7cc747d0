package etcdlease_test

import (
	"context"
	"log"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/idgen/idgen/plugins/etcdlease"
	"github.com/idgen/idgen/runtime/lease"
	"github.com/idgen/idgen/runtime/snowflake"
)

// A fleet leasing its worker IDs from the etcd it already runs.
func ExampleNew() {
	ctx := context.Background()
	client, err := clientv3.New(clientv3.Config{Endpoints: []string{"127.0.0.1:2379"}, DialTimeout: 5 * time.Second})
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	backend, err := etcdlease.New(client, etcdlease.Options{Prefix: "orders/lease/"})
	if err != nil {
		log.Fatal(err)
	}
	l, err := lease.Acquire(ctx, backend, lease.Config{Layout: snowflake.Classic(), TTL: 10 * time.Second})
	if err != nil {
		log.Fatal(err)
	}
	defer l.Close(context.Background()) // releases the ID, keeping the recorded tick
	id, err := l.Next()                 // *lease.NotHeldError while the lease is in doubt
	if err != nil {
		log.Fatal(err)
	}
	log.Println(id)
}
