package snowflake

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/idgen/idgen/runtime/snowflake/snowflaketest"
)

func TestPeerPresets(t *testing.T) {
	tests := []struct {
		name    string
		l       Layout
		epochMs int64
		unit    time.Duration
		bits    [3]uint8
		order   Order
	}{
		{"leaf", Leaf(), 1288834974657, time.Millisecond, [3]uint8{41, 10, 12}, TimeWorkerSeq},
		{"twitter", Twitter(), 1288834974657, time.Millisecond, [3]uint8{41, 10, 12}, TimeWorkerSeq},
		{"bwmarrin", Bwmarrin(), 1288834974657, time.Millisecond, [3]uint8{41, 10, 12}, TimeWorkerSeq},
		{"sonyflake-v1", SonyflakeV1(), 1409529600000, 10 * time.Millisecond, [3]uint8{39, 16, 8}, TimeSeqWorker},
		{"sonyflake-v2", SonyflakeV2(), 1735689600000, 10 * time.Millisecond, [3]uint8{39, 16, 8}, TimeSeqWorker},
		{"uid-generator", UIDGenerator(), 1463673600000, time.Second, [3]uint8{28, 22, 13}, TimeWorkerSeq},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := tt.l
			if l.Epoch.UnixMilli() != tt.epochMs || l.Unit != tt.unit || [3]uint8{l.TimeBits, l.WorkerBits, l.SeqBits} != tt.bits || l.Order != tt.order {
				t.Fatalf("layout %v, want epoch %d ms, %v, bits %v, %v", l, tt.epochMs, tt.unit, tt.bits, tt.order)
			}
			if err := l.Validate(); err != nil {
				t.Fatal(err)
			}
			got, err := Preset(tt.name)
			if err != nil || !got.Equal(l) {
				t.Fatalf("Preset(%q) = %v, %v", tt.name, got, err)
			}
			back, err := ParseLayout(l.Spec())
			if err != nil || !back.Equal(l) {
				t.Fatalf("ParseLayout(%q) = %v, %v", l.Spec(), back, err)
			}
		})
	}
}

// TestUIDGeneratorVectors decodes IDs built the way uid-generator's BitsAllocator builds
// them (deltaSeconds << 35 | workerId << 13 | sequence, 1 sign bit) and checks the time,
// worker and sequence its parseUID reports: the timestamp is epochSeconds + deltaSeconds,
// epochSeconds = 1463673600 by default.
func TestUIDGeneratorVectors(t *testing.T) {
	tests := []struct {
		id     int64
		unix   int64 // parseUID's "timestamp", in seconds
		worker int64
		seq    int64
	}{
		{id: 1<<35 | 1<<13 | 1, unix: 1463673601, worker: 1, seq: 1},
		// 2017-05-20 00:00:00 +08:00: 365 days after the epoch, worker 42, sequence 7.
		{id: 31536000<<35 | 42<<13 | 7, unix: 1495209600, worker: 42, seq: 7},
		// The last second of the layout (2024-11-20T13:24:15Z), the largest worker and
		// sequence: the largest int64.
		{id: 1<<63 - 1, unix: 1463673600 + 1<<28 - 1, worker: 1<<22 - 1, seq: 1<<13 - 1},
		{id: 274877906944, unix: 1463673608, worker: 0, seq: 0},
	}
	l := UIDGenerator()
	for _, tt := range tests {
		// parseUID's own shifts, on the unsigned 64 bits (>>> in Java).
		u := uint64(tt.id)
		if ts := int64(u>>35) + 1463673600; ts != tt.unix {
			t.Fatalf("vector %d: Java's shift gives %d, the table %d", tt.id, ts, tt.unix)
		}
		if w := int64((u << 29) >> 42); w != tt.worker {
			t.Fatalf("vector %d: Java's shift gives worker %d, the table %d", tt.id, w, tt.worker)
		}
		p, err := l.Decode(ID(tt.id))
		if err != nil {
			t.Fatal(err)
		}
		at := l.TimeOf(p.Tick)
		if at.Unix() != tt.unix || p.Worker != tt.worker || p.Seq != tt.seq {
			t.Errorf("Decode(%d) = %s worker %d seq %d, want %s worker %d seq %d", tt.id,
				at.UTC().Format(time.RFC3339), p.Worker, p.Seq, time.Unix(tt.unix, 0).UTC().Format(time.RFC3339), tt.worker, tt.seq)
		}
		back, err := l.Compose(p)
		if err != nil || int64(back) != tt.id {
			t.Errorf("Compose(%+v) = %d, %v; want %d", p, back, err, tt.id)
		}
	}
	if end := l.End().UTC(); end.Format(time.DateOnly) != "2024-11-20" {
		t.Errorf("uid-generator's default layout ends %v, want 2024-11-20", end)
	}
	if _, err := New(l, 1, Options{}); !errors.Is(err, ErrLifetimeOver) {
		t.Errorf("New(UIDGenerator()) = %v, want ErrLifetimeOver", err)
	}
}

// TestSonyflakeV1Vector: sonyflake v1 writes time<<24 | sequence<<16 | machine.
func TestSonyflakeV1Vector(t *testing.T) {
	l := SonyflakeV1()
	at := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
	tick := at.Sub(time.Date(2014, 9, 1, 0, 0, 0, 0, time.UTC)).Milliseconds() / 10
	id := tick<<24 | 3<<16 | 0xBEEF
	p, err := l.Decode(ID(id))
	if err != nil {
		t.Fatal(err)
	}
	if !l.TimeOf(p.Tick).Equal(at) || p.Seq != 3 || p.Worker != 0xBEEF {
		t.Errorf("Decode(%d) = %v %+v", id, l.TimeOf(p.Tick), p)
	}
}

func TestParseLayout(t *testing.T) {
	tests := []struct {
		in      string
		want    Layout
		wantErr string
	}{
		{in: "classic", want: Classic()},
		{in: "classicdc", want: ClassicDC()},
		{in: "Classic_DC", want: ClassicDC()},
		{in: "uid-generator", want: UIDGenerator()},
		{in: "epoch=1288834974657,unit=1ms,bits=41/10/12", want: Leaf()},
		{in: "epoch=2010-11-04T01:42:54.657Z, unit=1ms, bits=41/10/12, datacenter=5", want: Twitter()},
		{in: "epoch=2014-09-01,unit=10ms,bits=39/16/8,order=time-seq-worker", want: SonyflakeV1()},
		{in: "sonyflake-v1,epoch=2025-01-01", want: Sonyflake()},
		{in: "epoch=2025-01-01,unit=1ms,bits=41/6/6,width=53", want: JSONSafe()},
		{in: "twitterish", wantErr: `unknown layout "twitterish"`},
		{in: "epoch=2010-11-04,unit=1ms", wantErr: "no bits"},
		{in: "leaf,order=seq-first", wantErr: `order "seq-first"`},
		{in: "leaf,bits=41/10", wantErr: "want time/worker/sequence"},
		{in: "leaf,epoch=yesterday", wantErr: `epoch "yesterday"`},
		{in: "leaf,colour=blue", wantErr: `unknown field "colour"`},
		{in: "leaf,bits=41/10/11", wantErr: "41+10+11 = 62 bits, want 63"},
		{in: "leaf,classic", wantErr: "is not key=value"},
		{in: "leaf,epoch=2999-01-01", wantErr: "is in the future"},
	}
	for _, tt := range tests {
		got, err := ParseLayout(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.Is(err, ErrInvalidLayout) {
				t.Errorf("ParseLayout(%q) = %v, %v; want an ErrInvalidLayout containing %q", tt.in, got, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !got.Equal(tt.want) {
			t.Errorf("ParseLayout(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
	if s := (Layout{Epoch: time.UnixMilli(1288834974657), Unit: 2 * time.Millisecond, TimeBits: 40, WorkerBits: 11, SeqBits: 12}).Spec(); s != "epoch=2010-11-04T01:42:54.657Z,unit=2ms,bits=40/11/12" {
		t.Errorf("Spec = %q", s)
	}
}

// FuzzParseLayout: text either parses into a valid layout that its Spec reads back as,
// or is refused with ErrInvalidLayout.
func FuzzParseLayout(f *testing.F) {
	for _, s := range []string{"leaf", "classic-dc", "epoch=1288834974657,unit=1ms,bits=41/10/12", "sonyflake-v1,epoch=2025-01-01", "epoch=2025-01-01,unit=1ms,bits=41/6/6,width=53", "x=,", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := ParseLayout(s)
		if err != nil {
			if !errors.Is(err, ErrInvalidLayout) {
				t.Fatalf("ParseLayout(%q): %v does not match ErrInvalidLayout", s, err)
			}
			return
		}
		if err := l.Validate(); err != nil {
			t.Fatalf("ParseLayout(%q) returned an invalid layout: %v", s, err)
		}
		back, err := ParseLayout(l.Spec())
		if err != nil || !back.Equal(l) {
			t.Fatalf("ParseLayout(%q).Spec() = %q reads back as %v, %v", s, l.Spec(), back, err)
		}
	})
}

func TestCheckFloor(t *testing.T) {
	now := time.Date(2026, 12, 6, 4, 0, 0, 0, time.UTC)
	// The last ID Leaf issued a second ago on worker 1023.
	leafFloor, err := Leaf().Compose(Parts{Tick: Leaf().Tick(now.Add(-time.Second)), Worker: 1023, Seq: 4095})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		l     Layout
		floor ID
		want  []string // substrings of the refusal; nil: accepted
	}{
		{name: "no floor", l: Classic(), floor: 0},
		{name: "leaf continues leaf", l: Leaf(), floor: leafFloor},
		{name: "twitter continues leaf", l: Twitter(), floor: leafFloor},
		// Sonyflake's 10 ms ticks count about 16 times fewer: its IDs are below Leaf's.
		{name: "sonyflake-v1 after leaf", l: SonyflakeV1(), floor: leafFloor, want: []string{"layout sonyflake-v1"}},
		{name: "classic after leaf", l: Classic(), floor: leafFloor, want: []string{
			"snowflake: floor " + leafFloor.String() + " (the highest ID already issued) is not below the next ID of layout classic",
			"set the epoch at or before 2010-11-04T01:42:55.657Z (Unix ms 1288834975657)",
			"presets that continue above it: leaf, twitter, bwmarrin",
		}},
		{name: "jsonsafe is too narrow", l: JSONSafe(), floor: leafFloor, want: []string{"the floor is wider than the layout's 53 bits"}},
		{name: "a floor issued in the future", l: Leaf(), floor: leafFloor + 2000<<22, want: []string{"the clock's is tick"}},
		{name: "sonyflake v2 after v1", l: SonyflakeV2(), floor: 1 << 62, want: []string{"not below the next ID of layout sonyflake"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckFloor(tt.l, tt.floor, now)
			if tt.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var fe *FloorError
			if !errors.As(err, &fe) || !errors.Is(err, ErrBelowFloor) || fe.Floor != tt.floor {
				t.Fatalf("CheckFloor = %v, want a *FloorError of floor %d", err, tt.floor)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\ndoes not say %q", err, w)
				}
			}
		})
	}
}

// TestGeneratorFloor: New refuses a floor it would not stay above; accepted, every ID is
// above the floor even after the clock goes back.
func TestGeneratorFloor(t *testing.T) {
	now := time.Date(2026, 12, 6, 4, 0, 0, 0, time.UTC)
	clk := snowflaketest.NewClock(now)
	floor, _ := Leaf().Compose(Parts{Tick: Leaf().Tick(now) - 1, Worker: 1023, Seq: 4095})
	if _, err := New(Classic(), 1, Options{Clock: clk, Floor: floor}); !errors.Is(err, ErrBelowFloor) {
		t.Fatalf("New(Classic) over a Leaf floor = %v, want ErrBelowFloor", err)
	}
	g, err := New(Leaf(), 0, Options{Clock: clk, Floor: floor, Rollback: RollbackFail})
	if err != nil {
		t.Fatal(err)
	}
	id, err := g.Next()
	if err != nil || id <= floor {
		t.Fatalf("first ID %d, %v; want above the floor %d", id, err, floor)
	}
	// A floor in the clock's own tick (read just now): the first ID waits for the next.
	inTick, _ := Leaf().Compose(Parts{Tick: Leaf().Tick(now), Worker: 1023, Seq: 4095})
	clk3 := snowflaketest.NewClock(now)
	clk3.AutoAdvance(true)
	g3, err := New(Leaf(), 0, Options{Clock: clk3, Floor: inTick})
	if err != nil {
		t.Fatal(err)
	}
	if id, err := g3.Next(); err != nil || id <= inTick {
		t.Fatalf("first ID after a floor in the current tick: %d, %v; want above %d", id, err, inTick)
	}
	// A floor in the clock's own tick-1 from another worker: the generator starts its
	// state at the floor's tick, so even a clock set back two ticks issues nothing below.
	clk2 := snowflaketest.NewClock(now)
	g2, err := New(Leaf(), 0, Options{Clock: clk2, Floor: floor, Rollback: RollbackWait})
	if err != nil {
		t.Fatal(err)
	}
	clk2.Set(now.Add(-2 * time.Millisecond))
	clk2.AutoAdvance(true)
	id2, err := g2.Next()
	if err != nil || id2 <= floor {
		t.Fatalf("ID after a rollback %d, %v; want above the floor %d", id2, err, floor)
	}
}
