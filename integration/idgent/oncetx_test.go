package idgent_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/idgen/idgen/examples/ent/ent"
	"github.com/idgen/idgen/examples/ent/ent/event"
	"github.com/idgen/idgen/plugins/idgent"
	"github.com/idgen/idgen/runtime/ledger"
	"github.com/idgen/idgen/runtime/sqldb"
)

// TestOnceTx: a message's effect (an Event named after it, no unique index) happens once
// however often the message is delivered, concurrently or not, and not at all when the
// work fails.
func TestOnceTx(t *testing.T) {
	ctx := context.Background()
	for _, e := range databases(t, "ent_oncetx") {
		t.Run(e.name, func(t *testing.T) {
			dialect := map[string]sqldb.Dialect{"sqlite": sqldb.SQLite, "postgres": sqldb.Postgres, "mysql": sqldb.MySQL}[e.name]
			dl, err := ledger.New(dialect, ledger.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := dl.CreateTable(ctx, e.client); err != nil {
				t.Fatal(err)
			}
			emit := func(msg string) func(context.Context, *ent.Tx) error {
				return func(ctx context.Context, tx *ent.Tx) error {
					return tx.Event.Create().SetName(msg).Exec(ctx)
				}
			}
			count := func(msg string) int {
				n, err := e.client.Event.Query().Where(event.Name(msg)).Count(ctx)
				if err != nil {
					t.Fatal(err)
				}
				return n
			}
			for i, want := range []bool{true, false} {
				if ran, err := idgent.OnceTx(ctx, e.client.Tx, dl, "e1", emit("e1")); err != nil || ran != want {
					t.Fatalf("delivery %d: ran=%v %v", i, ran, err)
				}
			}
			boom := errors.New("boom")
			fail := func(ctx context.Context, tx *ent.Tx) error { emit("e2")(ctx, tx); return boom }
			if ran, err := idgent.OnceTx(ctx, e.client.Tx, dl, "e2", fail); ran || !errors.Is(err, boom) {
				t.Fatalf("failing work: ran=%v %v", ran, err)
			}
			if ran, err := idgent.OnceTx(ctx, e.client.Tx, dl, "e2", emit("e2")); !ran || err != nil {
				t.Fatalf("redelivery after a failure: ran=%v %v", ran, err)
			}
			var ran atomic.Int64
			var wg sync.WaitGroup
			for i := range 40 {
				wg.Go(func() {
					msg := fmt.Sprint("ec", i%4)
					r, err := idgent.OnceTx(ctx, e.client.Tx, dl, msg, emit(msg))
					if err != nil {
						t.Error(err)
					}
					if r {
						ran.Add(1)
					}
				})
			}
			wg.Wait()
			if ran.Load() != 4 {
				t.Errorf("%d of 40 deliveries of 4 messages ran, want 4", ran.Load())
			}
			for _, msg := range []string{"e1", "e2", "ec0", "ec1", "ec2", "ec3"} {
				if n := count(msg); n != 1 {
					t.Errorf("message %s emitted %d events", msg, n)
				}
			}
		})
	}
}
