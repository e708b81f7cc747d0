// Command ent shows idgen with ent on an embedded SQLite database: mixins that give users,
// orders and payments their IDs and numbers, a retried create that returns the first
// order instead of making a second, and a GraphQL endpoint (entgql and gqlgen, package
// graph) whose Relay node(id:) finds a user or a product by its ID's prefix while the ID
// columns stay BIGINT.
//
//	go run ./examples/ent                    # the walk-through
//	go run ./examples/ent -addr localhost:8080 # then serve POST /query until interrupted
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	_ "modernc.org/sqlite"

	"github.com/idgen/idgen"
	"github.com/idgen/idgen/examples/ent/ent"
	_ "github.com/idgen/idgen/examples/ent/ent/runtime" // the schema's hooks
	"github.com/idgen/idgen/examples/ent/graph"
	"github.com/idgen/idgen/runtime/snowflake"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("ent example: ")
	addr := flag.String("addr", "", "after the walk-through, serve GraphQL on this address at POST /query")
	flag.Parse()
	var serve func(http.Handler) error
	if *addr != "" {
		serve = func(h http.Handler) error {
			mux := http.NewServeMux()
			mux.Handle("POST /query", h)
			log.Printf("GraphQL on http://%s/query", *addr)
			return http.ListenAndServe(*addr, mux)
		}
	}
	dir, err := os.MkdirTemp("", "idgen-ent-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := run(os.Stdout, filepath.Join(dir, "shop.db"), serve); err != nil {
		log.Fatal(err)
	}
}

// run walks through the example, writing what happens to w, and then hands the GraphQL
// handler to serve, unless serve is nil.
func run(w io.Writer, path string, serve func(http.Handler) error) error {
	ctx := context.Background()
	gen, err := snowflake.New(snowflake.Classic(), 3, snowflake.Options{})
	if err != nil {
		return err
	}
	idgen.SetDefault(gen)

	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=foreign_keys(1)&_pragma=busy_timeout(10000)")
	if err != nil {
		return err
	}
	client := ent.NewClient(ent.Driver(entsql.OpenDB(dialect.SQLite, db)))
	defer client.Close()
	if err := client.Schema.Create(ctx); err != nil {
		return err
	}

	u, err := client.User.Create().SetEmail("ada@example.com").SetName("Ada").Save(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "user %s: id %s (the TypedID mixin filled it)\n", u.Name, u.ID)

	// The client sends "create order" with its request key, times out, and retries.
	var first *ent.Order
	for attempt := 1; attempt <= 2; attempt++ {
		o, created, err := client.Order.Create().
			SetRequestID("req-91c2").SetCents(1999).SetUserID(u.ID).
			CreateOrGet(ctx)
		if err != nil {
			return err
		}
		if created {
			first = o
			fmt.Fprintf(w, "attempt %d: created order %d, number %s\n", attempt, o.ID, o.No)
			continue
		}
		fmt.Fprintf(w, "attempt %d: key seen before: got order %d, number %s back, nothing inserted\n", attempt, o.ID, o.No)
		if o.ID != first.ID {
			return fmt.Errorf("the retry got order %d, not %d", o.ID, first.ID)
		}
	}
	n, err := client.Order.Query().Count(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "orders in the database: %d\n", n)

	p, created, err := client.Payment.Create().SetOrderID(first.ID).SetAttempt(1).SetCents(1999).CreateOrGet(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "payment %s (created %v), transaction %s\n", p.ID, created, p.TxnNo)

	// A GraphQL client holds only the text "usr_…": the prefix tells the user's table.
	h := graph.NewHandler(client)
	query := `{"query": "{ node(id: \"` + u.ID.String() + `\") { id __typename ... on User { name } } }"}`
	req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/query", strings.NewReader(query))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	fmt.Fprintf(w, "node(id: %q): %s\n", u.ID, strings.TrimSpace(rec.Body.String()))
	if serve == nil {
		return nil
	}
	return serve(h)
}
