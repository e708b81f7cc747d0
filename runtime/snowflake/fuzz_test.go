package snowflake

import (
	"errors"
	"testing"
)

var fuzzLayouts = []Layout{Classic(), ClassicDC(), Sonyflake(), JSONSafe(), Leaf(), Twitter(), SonyflakeV1(), UIDGenerator()}

// FuzzDecode: any int64 either decodes into parts that compose back into it, under every
// preset, or is refused with ErrInvalidID.
func FuzzDecode(f *testing.F) {
	for _, seed := range []int64{0, 1, -1, 1 << 53, 1<<53 - 1, 1<<63 - 1, -1 << 63, 15099498622976, 0x5_1234_56} {
		f.Add(seed, uint8(0))
		f.Add(seed, uint8(2))
		f.Add(seed, uint8(3))
	}
	f.Fuzz(func(t *testing.T, v int64, which uint8) {
		l := fuzzLayouts[int(which)%len(fuzzLayouts)]
		p, err := l.Decode(ID(v))
		if err != nil {
			if !errors.Is(err, ErrInvalidID) {
				t.Fatalf("decode %d: %v", v, err)
			}
			return
		}
		id, err := l.Compose(p)
		if err != nil || id != ID(v) {
			t.Fatalf("%d -> %+v -> %d, %v", v, p, id, err)
		}
		if l.DatacenterBits > 0 {
			if w, err := l.Worker(p.Datacenter, p.Machine); err != nil || w != p.Worker {
				t.Fatalf("%+v: worker %d, %v", p, w, err)
			}
		}
	})
}

// FuzzCompose: in-range parts survive Compose and Decode; out-of-range ones are refused.
func FuzzCompose(f *testing.F) {
	f.Add(int64(0), int64(0), int64(0), uint8(0))
	f.Add(int64(1<<41-1), int64(1023), int64(4095), uint8(0))
	f.Add(int64(1<<39), int64(1), int64(1), uint8(2))
	f.Add(int64(-1), int64(64), int64(64), uint8(3))
	f.Fuzz(func(t *testing.T, tick, worker, seq int64, which uint8) {
		l := fuzzLayouts[int(which)%len(fuzzLayouts)]
		in := Parts{Tick: tick, Worker: worker, Seq: seq}
		id, err := l.Compose(in)
		inRange := tick >= 0 && tick <= l.MaxTick() && worker >= 0 && worker <= l.MaxWorker() && seq >= 0 && seq <= l.MaxSeq()
		if !inRange {
			if !errors.Is(err, ErrOutOfRange) {
				t.Fatalf("compose %+v = %d, %v; want ErrOutOfRange", in, id, err)
			}
			return
		}
		if err != nil || id < 0 {
			t.Fatalf("compose %+v = %d, %v", in, id, err)
		}
		out, err := l.Decode(id)
		if err != nil || out.Tick != tick || out.Worker != worker || out.Seq != seq {
			t.Fatalf("%+v -> %d -> %+v, %v", in, id, out, err)
		}
	})
}

// FuzzParseID: ParseID never panics, accepts exactly what String prints.
func FuzzParseID(f *testing.F) {
	for _, s := range []string{"", "0", "-1", "+1", "9223372036854775807", "9223372036854775808", "00", " 1", "1e3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, err := ParseID(s)
		if err != nil {
			if !errors.Is(err, ErrInvalidID) {
				t.Fatalf("ParseID(%q): %v", s, err)
			}
			return
		}
		if id < 0 {
			t.Fatalf("ParseID(%q) = %d", s, id)
		}
		back, err := ParseID(id.String())
		if err != nil || back != id {
			t.Fatalf("%q -> %d -> %q -> %d, %v", s, id, id.String(), back, err)
		}
	})
}
