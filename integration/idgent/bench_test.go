package idgent_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"

	"github.com/idgen/idgen"
	"github.com/idgen/idgen/examples/ent/ent"
	"github.com/idgen/idgen/integration/internal/testdb"
	"github.com/idgen/idgen/plugins/idgent"
	"github.com/idgen/idgen/runtime/snowflake"
)

// BenchmarkCreate creates one row a call on SQLite: Event takes its ID from the idgen mixin
// and has the duplicates hook; PlainEvent takes its ID from a plain int64 DefaultFunc.
func BenchmarkCreate(b *testing.B) {
	gen, err := snowflake.New(snowflake.Classic(), 1, snowflake.Options{Exhaust: snowflake.ExhaustBorrow, MaxDrift: time.Hour})
	if err != nil {
		b.Fatal(err)
	}
	idgen.SetDefault(gen)
	defer idgen.SetDefault(nil)
	open := func(b *testing.B) *ent.Client {
		db, err := sql.Open("sqlite", "file:"+testdb.SQLitePath(b)+"?_pragma=foreign_keys(1)&_pragma=journal_mode(WAL)&_pragma=synchronous(OFF)")
		if err != nil {
			b.Fatal(err)
		}
		c := ent.NewClient(ent.Driver(entsql.OpenDB(dialect.SQLite, db)))
		if err := c.Schema.Create(context.Background()); err != nil {
			b.Fatal(err)
		}
		return c
	}
	ctx := context.Background()
	b.Run("mixin+hook", func(b *testing.B) {
		c := open(b)
		defer c.Close()
		b.ReportAllocs()
		for b.Loop() {
			c.Event.Create().SetName("e").ExecX(ctx)
		}
	})
	b.Run("defaultfunc", func(b *testing.B) {
		c := open(b)
		defer c.Close()
		b.ReportAllocs()
		for b.Loop() {
			c.PlainEvent.Create().SetName("e").ExecX(ctx)
		}
	})
}

// BenchmarkHooks runs the ID mixin's and the duplicates hook on an Event create
// mutation around a mutator that does nothing: their cost alone, without the database.
func BenchmarkHooks(b *testing.B) {
	gen, err := snowflake.New(snowflake.Classic(), 1, snowflake.Options{Exhaust: snowflake.ExhaustBorrow, MaxDrift: time.Hour})
	if err != nil {
		b.Fatal(err)
	}
	c := ent.NewClient()
	noop := ent.MutateFunc(func(context.Context, ent.Mutation) (ent.Value, error) { return nil, nil })
	mix := idgent.ID(gen)
	chain := mix.Hooks()[0](idgent.Duplicates()(noop))
	ctx := context.Background()
	b.Run("hooks", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			m := c.Event.Create().SetName("e").Mutation()
			if _, err := chain.Mutate(ctx, m); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("builder-only", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			m := c.Event.Create().SetName("e").Mutation()
			if _, err := noop.Mutate(ctx, m); err != nil {
				b.Fatal(err)
			}
		}
	})
}
