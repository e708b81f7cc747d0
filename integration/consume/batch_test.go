package consume_test

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"testing"

	"github.com/idgen/idgen/runtime/consume"
	"github.com/idgen/idgen/runtime/ledger"
	"github.com/idgen/idgen/runtime/sqldb"
)

// TestOnceTxBatch: a batch with a key twice, a batch with done keys, a failing batch
// (nothing of it commits), and the batch's Processor, on SQLite.
func TestOnceTxBatch(t *testing.T) {
	ctx := context.Background()
	db := sqliteDB(t)
	l, err := ledger.New(sqldb.SQLite, ledger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.CreateTable(ctx, db); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	b := consume.OnceTxBatch(db, l, func(ctx context.Context, tx *sql.Tx, m string) error {
		if _, err := tx.ExecContext(ctx, "INSERT INTO effects VALUES (?)", m); err != nil {
			return err
		}
		if m == "bad" {
			return boom
		}
		return nil
	})
	for _, step := range []struct {
		keys []string
		ran  []bool
		err  error
	}{
		{[]string{"a", "b", "a"}, []bool{true, true, false}, nil},
		{[]string{"b", "c"}, []bool{false, true}, nil},
		{[]string{"d", "bad", "e"}, nil, boom},
		{[]string{"e", "d"}, []bool{true, true}, nil},
	} {
		ran, err := b(ctx, step.keys, step.keys)
		if !errors.Is(err, step.err) || !slices.Equal(ran, step.ran) {
			t.Fatalf("batch %v: ran=%v err=%v, want %v %v", step.keys, ran, err, step.ran, step.err)
		}
	}
	if n := rows(t, db); n != 5 {
		t.Errorf("%d rows, want 5 (a to e, once each)", n)
	}
	p := b.Processor()
	if ran, err := p(ctx, "a", "a"); ran || err != nil {
		t.Errorf("Processor of a done key: ran=%v %v", ran, err)
	}
	if ran, err := p(ctx, "f", "f"); !ran || err != nil {
		t.Errorf("Processor of a new key: ran=%v %v", ran, err)
	}
	if ran, err := p(ctx, "bad", "bad"); ran || !errors.Is(err, boom) {
		t.Errorf("Processor of a failing message: ran=%v %v", ran, err)
	}
}

// TestBatches: every value comes out once, in order, in batches of at most size, and
// values that arrive while no one takes a batch gather into one.
func TestBatches(t *testing.T) {
	in := make(chan int)
	out := consume.Batches(in, 4)
	in <- 0
	in <- 1 // the first batch waits for a taker: 1 joins it
	in <- 2
	in <- 3
	var got [][]int
	// Four values arrived while no one took: one batch of 4, then a full batch blocks
	// more until taken.
	got = append(got, <-out)
	for i := 4; i < 10; i++ {
		in <- i
		if i == 6 {
			got = append(got, <-out) // 4, 5, 6
		}
	}
	close(in)
	for b := range out {
		got = append(got, b)
	}
	want := [][]int{{0, 1, 2, 3}, {4, 5, 6}, {7, 8, 9}}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("batches %v, want %v", got, want)
	}
}
