package snowflake

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

func presets() map[string]Layout {
	return map[string]Layout{
		"classic":   Classic(),
		"classicdc": ClassicDC(),
		"sonyflake": Sonyflake(),
		"jsonsafe":  JSONSafe(),
	}
}

func TestPresets(t *testing.T) {
	year := 365.25 * 24 * time.Hour.Hours()
	tests := []struct {
		name    string
		years   float64
		perSec  float64
		maxWork int64
		width   uint // every ID stays below 2^width
	}{
		{"classic", 69.7, 4_096_000, 1023, 63},
		{"classicdc", 69.7, 4_096_000, 1023, 63},
		{"sonyflake", 174.2, 25_600, 65535, 63},
		{"jsonsafe", 69.7, 64_000, 63, 53},
	}
	for _, tt := range tests {
		l := presets()[tt.name]
		if err := l.Validate(); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := l.Lifetime().Hours() / year; math.Abs(got-tt.years) > 0.1 {
			t.Errorf("%s: lifetime %.2f years, want %.1f", tt.name, got, tt.years)
		}
		if got := l.IDsPerSecond(); got != tt.perSec {
			t.Errorf("%s: %v IDs/s, want %v", tt.name, got, tt.perSec)
		}
		if got := l.MaxWorker(); got != tt.maxWork {
			t.Errorf("%s: max worker %d, want %d", tt.name, got, tt.maxWork)
		}
		top, err := l.Compose(Parts{Tick: l.MaxTick(), Worker: l.MaxWorker(), Seq: l.MaxSeq()})
		if err != nil {
			t.Fatal(err)
		}
		if top < 0 || uint64(top)>>tt.width != 0 || uint64(top)+1 != 1<<tt.width {
			t.Errorf("%s: largest ID %d is not 2^%d-1", tt.name, top, tt.width)
		}
	}
	if got := JSONSafe().End(); got.Year() < 2094 {
		t.Errorf("jsonsafe ends %v", got)
	}
}

func TestValidate(t *testing.T) {
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	mod := func(f func(*Layout)) Layout { l := Classic(); f(&l); return l }
	tests := []struct {
		name   string
		layout Layout
		want   string // substring of the message
	}{
		{"bits sum to 62", mod(func(l *Layout) { l.SeqBits = 11 }), "TimeBits+WorkerBits+SeqBits 41+10+11 = 62 bits, want 63"},
		{"bits sum to 64", mod(func(l *Layout) { l.SeqBits = 13 }), "41+10+13 = 64 bits, want 63"},
		{"width 64", mod(func(l *Layout) { l.Width = 64; l.TimeBits = 42 }), "Width 64 bits leaves no room for the sign bit"},
		{"narrow width mismatch", mod(func(l *Layout) { l.Width = 53 }), "= 63 bits, want 53"},
		{"no time bits", mod(func(l *Layout) { l.TimeBits = 0; l.WorkerBits = 51 }), "TimeBits is zero"},
		{"no seq bits", mod(func(l *Layout) { l.SeqBits = 0; l.WorkerBits = 22 }), "SeqBits is zero"},
		{"unit below 1ms", mod(func(l *Layout) { l.Unit = time.Microsecond }), "Unit 1µs is below the 1ms minimum"},
		{"zero unit", mod(func(l *Layout) { l.Unit = 0 }), "Unit 0s is below the 1ms minimum"},
		{"no epoch", mod(func(l *Layout) { l.Epoch = time.Time{} }), "Epoch is not set"},
		{"future epoch", mod(func(l *Layout) { l.Epoch = now.Add(time.Hour) }), "Epoch 2026-06-01T01:00:00Z is in the future"},
		{"dc bits", mod(func(l *Layout) { l.DatacenterBits = 11 }), "DatacenterBits 11 is more than the 10 worker bits"},
		{"order", mod(func(l *Layout) { l.Order = 7 }), "Order unknown order 7"},
		{"lifetime overflow", mod(func(l *Layout) { l.Unit = time.Second; l.TimeBits = 41 }), "outlive time.Duration"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.layout.validate(now)
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, ErrInvalidLayout) {
				t.Errorf("%v does not match ErrInvalidLayout", err)
			}
			var le *LayoutError
			if !errors.As(err, &le) || le.Field == "" {
				t.Errorf("%v is not a *LayoutError with a field", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not say %q", err, tt.want)
			}
			if _, err := New(tt.layout, 0, Options{}); err == nil && tt.name != "future epoch" {
				t.Errorf("New accepted the layout")
			}
		})
	}
}

func TestComposeDecode(t *testing.T) {
	for name, l := range presets() {
		for _, p := range []Parts{
			{},
			{Tick: 1, Worker: 1, Seq: 1},
			{Tick: l.MaxTick(), Worker: l.MaxWorker(), Seq: l.MaxSeq()},
			{Tick: l.MaxTick() / 3, Worker: l.MaxWorker() / 2, Seq: l.MaxSeq() / 5},
		} {
			id, err := l.Compose(p)
			if err != nil {
				t.Fatalf("%s: compose %+v: %v", name, p, err)
			}
			got, err := l.Decode(id)
			if err != nil {
				t.Fatalf("%s: decode %d: %v", name, id, err)
			}
			if got.Tick != p.Tick || got.Worker != p.Worker || got.Seq != p.Seq {
				t.Errorf("%s: %+v -> %d -> %+v", name, p, id, got)
			}
			if l.DatacenterBits > 0 {
				w, err := l.Worker(got.Datacenter, got.Machine)
				if err != nil || w != p.Worker {
					t.Errorf("%s: datacenter %d machine %d -> worker %d, %v; want %d", name, got.Datacenter, got.Machine, w, err, p.Worker)
				}
			}
		}
		for _, p := range []Parts{{Tick: -1}, {Tick: l.MaxTick() + 1}, {Worker: -1}, {Worker: l.MaxWorker() + 1}, {Seq: -1}, {Seq: l.MaxSeq() + 1}} {
			if _, err := l.Compose(p); !errors.Is(err, ErrOutOfRange) {
				t.Errorf("%s: compose %+v: %v, want ErrOutOfRange", name, p, err)
			}
		}
		if _, err := l.Decode(-1); !errors.Is(err, ErrInvalidID) {
			t.Errorf("%s: decode -1: %v", name, err)
		}
	}
	if _, err := JSONSafe().Decode(1 << 53); !errors.Is(err, ErrInvalidID) {
		t.Errorf("jsonsafe decode 2^53: %v", err)
	}
	// Twitter's split: datacenter 3, machine 17.
	l := ClassicDC()
	w, err := l.Worker(3, 17)
	if err != nil || w != 3<<5|17 {
		t.Fatalf("worker(3, 17) = %d, %v", w, err)
	}
	if _, err := l.Worker(32, 0); !errors.Is(err, ErrOutOfRange) {
		t.Errorf("datacenter 32: %v", err)
	}
	if _, err := l.Worker(0, 32); !errors.Is(err, ErrOutOfRange) {
		t.Errorf("machine 32: %v", err)
	}
}

// TestSonyflakeBits checks the sonyflake order: sequence above the machine number.
func TestSonyflakeBits(t *testing.T) {
	l := Sonyflake()
	id, _ := l.Compose(Parts{Tick: 5, Worker: 0x1234, Seq: 0x56})
	if want := ID(5<<24 | 0x56<<16 | 0x1234); id != want {
		t.Fatalf("compose = %#x, want %#x", id, want)
	}
}

func TestTickTimeOf(t *testing.T) {
	l := Sonyflake()
	at := l.Epoch.Add(25*time.Millisecond + 3)
	if got := l.Tick(at); got != 2 {
		t.Errorf("tick = %d", got)
	}
	if got := l.Tick(l.Epoch.Add(-time.Millisecond)); got != -1 {
		t.Errorf("tick before epoch = %d", got)
	}
	if got := l.TimeOf(2); !got.Equal(l.Epoch.Add(20 * time.Millisecond)) {
		t.Errorf("TimeOf(2) = %v", got)
	}
}

func TestParseID(t *testing.T) {
	for _, s := range []string{"", "-1", "+1", "1.0", " 1", "9223372036854775808", "99999999999999999999", "0x10", "１"} {
		if _, err := ParseID(s); !errors.Is(err, ErrInvalidID) {
			t.Errorf("ParseID(%q) = %v, want ErrInvalidID", s, err)
		}
	}
	for _, s := range []string{"0", "1", "9223372036854775807", "000123"} {
		id, err := ParseID(s)
		if err != nil {
			t.Fatalf("ParseID(%q): %v", s, err)
		}
		if strings.TrimLeft(s, "0") != strings.TrimLeft(id.String(), "0") {
			t.Errorf("ParseID(%q) = %v", s, id)
		}
	}
	var id ID
	if err := id.UnmarshalText([]byte("42")); err != nil || id != 42 {
		t.Errorf("UnmarshalText = %v, %v", id, err)
	}
	b, _ := id.MarshalText()
	if string(b) != "42" {
		t.Errorf("MarshalText = %s", b)
	}
}

func TestAppendTextAllocs(t *testing.T) {
	buf := make([]byte, 0, 32)
	id := ID(1234567890123456789)
	if n := testing.AllocsPerRun(1000, func() { buf, _ = id.AppendText(buf[:0]) }); n != 0 {
		t.Errorf("AppendText allocates %v times", n)
	}
}
