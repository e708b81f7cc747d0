package bench_test

import (
	"testing"
	"time"

	bwsnowflake "github.com/bwmarrin/snowflake"
	"github.com/sony/sonyflake/v2"

	"github.com/idgen/idgen/runtime/snowflake"
)

// TestSonyflakeCompatible: IDs made by sonyflake v2 with its defaults decode under
// snowflake.Sonyflake() into the same time, sequence and machine, and Compose gives them back.
func TestSonyflakeCompatible(t *testing.T) {
	sf, err := sonyflake.New(sonyflake.Settings{MachineID: func() (int, error) { return 0x1234, nil }})
	if err != nil {
		t.Fatal(err)
	}
	layout := snowflake.Sonyflake()
	for range 300 { // more than one 10 ms tick's 256
		v, err := sf.NextID()
		if err != nil {
			t.Fatal(err)
		}
		p, err := layout.Decode(snowflake.ID(v))
		if err != nil {
			t.Fatal(err)
		}
		want := sf.Decompose(v)
		if p.Tick != want["time"] || p.Seq != want["sequence"] || p.Worker != want["machine"] {
			t.Fatalf("%d: idgen %+v, sonyflake %v", v, p, want)
		}
		if got := layout.TimeOf(p.Tick); !got.Equal(sf.ToTime(v)) {
			t.Fatalf("%d: time %v, sonyflake %v", v, got, sf.ToTime(v))
		}
		back, err := layout.Compose(p)
		if err != nil || int64(back) != v {
			t.Fatalf("compose %+v = %d, %v; want %d", p, back, err, v)
		}
	}
}

// TestBwmarrinCompatible: a bwmarrin/snowflake ID decodes under the classic layout with
// bwmarrin's epoch into the same time, node and step.
func TestBwmarrinCompatible(t *testing.T) {
	node, err := bwsnowflake.NewNode(513)
	if err != nil {
		t.Fatal(err)
	}
	layout := snowflake.Classic()
	layout.Epoch = time.UnixMilli(bwsnowflake.Epoch)
	for range 100 {
		id := node.Generate()
		p, err := layout.Decode(snowflake.ID(id.Int64()))
		if err != nil {
			t.Fatal(err)
		}
		if p.Worker != id.Node() || p.Seq != id.Step() || layout.TimeOf(p.Tick).UnixMilli() != id.Time() {
			t.Fatalf("%d: idgen %+v, bwmarrin node %d step %d time %d", id, p, id.Node(), id.Step(), id.Time())
		}
	}
}
