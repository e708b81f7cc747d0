package idotel_test

import (
	"context"
	"testing"

	"github.com/idgen/idgen/plugins/idotel"
	"github.com/idgen/idgen/runtime/segment"
	"github.com/idgen/idgen/runtime/sqldb"
)

// TestSegment draws 15 IDs in blocks of 10 from SQLite: two reservations of 10 IDs, the
// second made in the background while the caller waited, and 5 IDs left buffered.
func TestSegment(t *testing.T) {
	m := newMeter(t)
	obs, err := idotel.NewSegment(m.opts)
	if err != nil {
		t.Fatal(err)
	}
	defer obs.Close()
	store, err := segment.NewSQL(openSQLite(t), sqldb.SQLite, segment.SQLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Threshold 0.9: the next block is reserved when the 10th ID of a block goes out, so
	// 15 IDs make exactly two reservations.
	a, err := segment.New(store, "order", segment.Options{Step: 10, MinStep: 10, MaxStep: 10, Threshold: 0.9, Observer: obs})
	if err != nil {
		t.Fatal(err)
	}
	obs.Track(a)
	if _, err := a.NextN(context.Background(), 15); err != nil {
		t.Fatal(err)
	}
	c := m.collect(t)
	tag := idotel.SegmentTagKey.String("order")
	c.unit(t, "idgen.segment.fetch.duration", "s")
	if cnt, sum := c.hist(t, "idgen.segment.fetch.duration", tag); cnt != 2 || sum <= 0 {
		t.Errorf("idgen.segment.fetch.duration{order}: %d fetches taking %v s, want 2 taking some time", cnt, sum)
	}
	c.unit(t, "idgen.segment.ids.reserved", "{id}")
	if got := c.sum(t, "idgen.segment.ids.reserved", tag); got != 20 {
		t.Errorf("idgen.segment.ids.reserved{order} = %d, want 20", got)
	}
	c.unit(t, "idgen.segment.ids.buffered", "{id}")
	if got, st := c.sum(t, "idgen.segment.ids.buffered", tag), a.Stats(); got != 5 || st.Buffered != 5 {
		t.Errorf("idgen.segment.ids.buffered{order} = %d (Stats %+v), want 5", got, st)
	}
}
