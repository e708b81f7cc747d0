package snowflake

import (
	"fmt"
	"math"
	"time"
)

// Order says how the worker and sequence fields sit below the time field.
type Order uint8

const (
	// TimeWorkerSeq is the classic snowflake order: time, then worker, then sequence.
	TimeWorkerSeq Order = iota
	// TimeSeqWorker is sonyflake's order: time, then sequence, then worker in the low bits.
	TimeSeqWorker
)

// String returns the order's name.
func (o Order) String() string {
	switch o {
	case TimeWorkerSeq:
		return "time-worker-seq"
	case TimeSeqWorker:
		return "time-seq-worker"
	}
	return fmt.Sprintf("Order(%d)", uint8(o))
}

// Layout describes how a 64-bit ID splits into a time field counted in Units since Epoch,
// a worker field and a sequence field. The three fields fill Width bits (63 unless set), so
// the sign bit is always zero and IDs sort like the time they were issued at.
//
// A Layout is a plain value: copy it, compare it, keep it in configuration. Validate it (New
// does) before use.
type Layout struct {
	// Epoch is the instant of tick 0. It must not be in the future.
	Epoch time.Time
	// Unit is the length of one tick, at least one millisecond.
	Unit time.Duration
	// TimeBits, WorkerBits and SeqBits are the widths of the three fields.
	TimeBits, WorkerBits, SeqBits uint8
	// DatacenterBits, when not zero, splits the worker field into a datacenter number in its
	// high DatacenterBits bits and a machine number in the rest.
	DatacenterBits uint8
	// Width is the number of low bits the fields fill: 0 means 63. A narrower width keeps
	// every ID below 2^Width (53 keeps IDs exact as JSON numbers in JavaScript).
	Width uint8
	// Order places the worker and sequence fields.
	Order Order
}

// epoch2025 is the epoch of the presets, 2025-01-01T00:00:00Z, which is also sonyflake v2's
// default start time.
var epoch2025 = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// Classic returns the classic snowflake layout: 41 bits of milliseconds (69 years from
// 2025-01-01 UTC), 10 bits of worker and 12 bits of sequence, 4,096,000 IDs per second per
// worker.
func Classic() Layout {
	return Layout{Epoch: epoch2025, Unit: time.Millisecond, TimeBits: 41, WorkerBits: 10, SeqBits: 12}
}

// ClassicDC returns the Classic layout with its worker field split into a 5-bit datacenter
// and a 5-bit machine number, as in Twitter's original snowflake.
func ClassicDC() Layout {
	l := Classic()
	l.DatacenterBits = 5
	return l
}

// Sonyflake returns a layout that reads and writes sonyflake v2 IDs with its default
// settings: 39 bits of 10 ms units from 2025-01-01 UTC (174 years), an 8-bit sequence and a
// 16-bit machine number in the low bits.
func Sonyflake() Layout {
	return Layout{Epoch: epoch2025, Unit: 10 * time.Millisecond, TimeBits: 39, WorkerBits: 16, SeqBits: 8, Order: TimeSeqWorker}
}

// JSONSafe returns a 53-bit layout whose IDs stay below 2^53 for its whole lifetime, so
// they survive a round trip through a JavaScript number: 41 bits of milliseconds (69 years
// from 2025-01-01 UTC), 6 bits of worker (64 workers) and 6 bits of sequence (64,000 IDs per
// second per worker).
func JSONSafe() Layout {
	return Layout{Epoch: epoch2025, Unit: time.Millisecond, TimeBits: 41, WorkerBits: 6, SeqBits: 6, Width: 53}
}

// width returns the number of bits the fields fill.
func (l Layout) width() uint8 {
	if l.Width == 0 {
		return 63
	}
	return l.Width
}

// Equal reports whether l and o lay out IDs the same way: the same epoch (as an instant),
// unit, field widths, field order and total width, so an ID of one decodes the same under
// the other.
func (l Layout) Equal(o Layout) bool {
	return l.Epoch.Equal(o.Epoch) && l.Unit == o.Unit && l.TimeBits == o.TimeBits && l.WorkerBits == o.WorkerBits &&
		l.SeqBits == o.SeqBits && l.Order == o.Order && l.DatacenterBits == o.DatacenterBits && l.width() == o.width()
}

// Validate reports what is wrong with the layout, as a *LayoutError, or nil.
func (l Layout) Validate() error {
	return l.validate(time.Now())
}

func (l Layout) validate(now time.Time) error {
	bad := func(field, format string, args ...any) error {
		return &LayoutError{Field: field, Problem: fmt.Sprintf(format, args...)}
	}
	w := l.width()
	switch {
	case l.Width > 63:
		return bad("Width", "%d bits leaves no room for the sign bit: at most 63", l.Width)
	case l.TimeBits == 0:
		return bad("TimeBits", "is zero: the time field needs at least 1 bit")
	case l.SeqBits == 0:
		return bad("SeqBits", "is zero: the sequence needs at least 1 bit")
	case int(l.TimeBits)+int(l.WorkerBits)+int(l.SeqBits) != int(w):
		return bad("TimeBits+WorkerBits+SeqBits", "%d+%d+%d = %d bits, want %d",
			l.TimeBits, l.WorkerBits, l.SeqBits, int(l.TimeBits)+int(l.WorkerBits)+int(l.SeqBits), w)
	case l.DatacenterBits > l.WorkerBits:
		return bad("DatacenterBits", "%d is more than the %d worker bits it splits", l.DatacenterBits, l.WorkerBits)
	case l.Order > TimeSeqWorker:
		return bad("Order", "unknown order %d", uint8(l.Order))
	case l.Unit < time.Millisecond:
		return bad("Unit", "%v is below the 1ms minimum", l.Unit)
	case l.Epoch.IsZero():
		return bad("Epoch", "is not set")
	case l.Epoch.After(now):
		return bad("Epoch", "%s is in the future (now %s)", l.Epoch.UTC().Format(time.RFC3339Nano), now.UTC().Format(time.RFC3339Nano))
	}
	if l.TimeBits >= 63 || int64(l.Unit) > math.MaxInt64>>l.TimeBits {
		return bad("TimeBits", "%d bits of %v outlive time.Duration (292 years): use fewer bits or a smaller unit", l.TimeBits, l.Unit)
	}
	return nil
}

// Lifetime returns how long after Epoch the layout can issue IDs.
func (l Layout) Lifetime() time.Duration {
	if l.TimeBits >= 63 || int64(l.Unit) > math.MaxInt64>>l.TimeBits {
		return time.Duration(math.MaxInt64)
	}
	return l.Unit << l.TimeBits
}

// End returns the first instant the layout can no longer represent.
func (l Layout) End() time.Time { return l.Epoch.Add(l.Lifetime()) }

// IDsPerSecond returns how many IDs one worker can issue per second at most.
func (l Layout) IDsPerSecond() float64 {
	return float64(uint64(1)<<l.SeqBits) * float64(time.Second) / float64(l.Unit)
}

// MaxWorker returns the largest worker ID.
func (l Layout) MaxWorker() int64 { return 1<<l.WorkerBits - 1 }

// MaxSeq returns the largest sequence number within one tick.
func (l Layout) MaxSeq() int64 { return 1<<l.SeqBits - 1 }

// MaxTick returns the last tick of the layout's lifetime.
func (l Layout) MaxTick() int64 { return 1<<l.TimeBits - 1 }

// Tick returns the tick t falls in. It is negative before Epoch.
func (l Layout) Tick(t time.Time) int64 {
	d := t.Sub(l.Epoch)
	tick := int64(d / l.Unit)
	if d < 0 && d%l.Unit != 0 {
		tick--
	}
	return tick
}

// TimeOf returns the instant tick starts at.
func (l Layout) TimeOf(tick int64) time.Time { return l.Epoch.Add(time.Duration(tick) * l.Unit) }

// Worker combines a datacenter and a machine number into a worker ID, for layouts with
// DatacenterBits.
func (l Layout) Worker(datacenter, machine int64) (int64, error) {
	mbits := l.WorkerBits - l.DatacenterBits
	if datacenter < 0 || datacenter > 1<<l.DatacenterBits-1 {
		return 0, fmt.Errorf("snowflake: datacenter %d out of range [0, %d]: %w", datacenter, int64(1)<<l.DatacenterBits-1, ErrOutOfRange)
	}
	if machine < 0 || machine > 1<<mbits-1 {
		return 0, fmt.Errorf("snowflake: machine %d out of range [0, %d]: %w", machine, int64(1)<<mbits-1, ErrOutOfRange)
	}
	return datacenter<<mbits | machine, nil
}

// String describes the layout, as in "41/10/12 bits of 1ms from 2025-01-01T00:00:00Z".
func (l Layout) String() string {
	s := fmt.Sprintf("%d/%d/%d bits of %v from %s", l.TimeBits, l.WorkerBits, l.SeqBits, l.Unit, l.Epoch.UTC().Format(time.RFC3339Nano))
	if l.DatacenterBits > 0 {
		s += fmt.Sprintf(", worker split %d+%d", l.DatacenterBits, l.WorkerBits-l.DatacenterBits)
	}
	if l.Order != TimeWorkerSeq {
		s += ", " + l.Order.String()
	}
	if l.Width != 0 && l.Width != 63 {
		s += fmt.Sprintf(", %d-bit", l.Width)
	}
	return s
}

// Parts are the fields of an ID under a layout.
type Parts struct {
	// Tick counts Units since the layout's Epoch.
	Tick int64
	// Worker is the worker field; Datacenter and Machine split it when the layout has
	// DatacenterBits, and are zero otherwise.
	Worker, Datacenter, Machine int64
	// Seq is the sequence within the tick.
	Seq int64
}

// Compose builds the ID of the given tick, worker and sequence. Datacenter and Machine are
// ignored: set Worker (Layout.Worker combines them).
func (l Layout) Compose(p Parts) (ID, error) {
	switch {
	case p.Tick < 0 || p.Tick > l.MaxTick():
		return 0, fmt.Errorf("snowflake: tick %d out of range [0, %d]: %w", p.Tick, l.MaxTick(), ErrOutOfRange)
	case p.Worker < 0 || p.Worker > l.MaxWorker():
		return 0, fmt.Errorf("snowflake: worker %d out of range [0, %d]: %w", p.Worker, l.MaxWorker(), ErrOutOfRange)
	case p.Seq < 0 || p.Seq > l.MaxSeq():
		return 0, fmt.Errorf("snowflake: sequence %d out of range [0, %d]: %w", p.Seq, l.MaxSeq(), ErrOutOfRange)
	}
	return l.compose(p.Tick, p.Worker, p.Seq), nil
}

// compose packs fields already known to be in range.
func (l Layout) compose(tick, worker, seq int64) ID {
	hi := tick << (l.WorkerBits + l.SeqBits)
	if l.Order == TimeSeqWorker {
		return ID(hi | seq<<l.WorkerBits | worker)
	}
	return ID(hi | worker<<l.SeqBits | seq)
}

// Decode splits id into its fields. An ID that is negative or wider than the layout is an
// error wrapping ErrInvalidID.
func (l Layout) Decode(id ID) (Parts, error) {
	w := l.width()
	if id < 0 || (w < 63 && id >= 1<<w) {
		return Parts{}, fmt.Errorf("snowflake: %d is not a %d-bit ID: %w", int64(id), w, ErrInvalidID)
	}
	v := int64(id)
	var p Parts
	p.Tick = v >> (l.WorkerBits + l.SeqBits)
	low := v & (1<<(l.WorkerBits+l.SeqBits) - 1)
	if l.Order == TimeSeqWorker {
		p.Seq, p.Worker = low>>l.WorkerBits, low&l.MaxWorker()
	} else {
		p.Worker, p.Seq = low>>l.SeqBits, low&l.MaxSeq()
	}
	if l.DatacenterBits > 0 {
		mbits := l.WorkerBits - l.DatacenterBits
		p.Datacenter, p.Machine = p.Worker>>mbits, p.Worker&(1<<mbits-1)
	}
	return p, nil
}

// Time returns the instant the tick of id starts at, or an error wrapping ErrInvalidID.
func (l Layout) Time(id ID) (time.Time, error) {
	p, err := l.Decode(id)
	if err != nil {
		return time.Time{}, err
	}
	return l.TimeOf(p.Tick), nil
}
