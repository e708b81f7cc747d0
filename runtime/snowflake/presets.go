package snowflake

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Epochs of the systems whose IDs the presets read and continue.
var (
	// twitterEpoch is Twitter's snowflake epoch, 1288834974657 ms after the Unix epoch
	// (2010-11-04T01:42:54.657Z): also the default of Meituan's Leaf and of
	// bwmarrin/snowflake.
	twitterEpoch = time.UnixMilli(1288834974657).UTC()
	// sonyflakeV1Epoch is sonyflake v1's default start time.
	sonyflakeV1Epoch = time.Date(2014, 9, 1, 0, 0, 0, 0, time.UTC)
	// uidGeneratorEpoch is Baidu uid-generator's default epoch, epochSeconds =
	// 1463673600 (2016-05-20 00:00 in UTC+8, its authors' zone).
	uidGeneratorEpoch = time.Unix(1463673600, 0).UTC()
)

// Twitter returns the layout of Twitter's snowflake: 41 bits of milliseconds from
// 2010-11-04T01:42:54.657Z, a 10-bit worker split into a 5-bit datacenter and a 5-bit
// machine number, and a 12-bit sequence. Its IDs are those of Leaf and bwmarrin/snowflake
// too; only the worker field is read as two numbers.
func Twitter() Layout {
	return Layout{Epoch: twitterEpoch, Unit: time.Millisecond, TimeBits: 41, WorkerBits: 10, SeqBits: 12, DatacenterBits: 5}
}

// Leaf returns the layout of Meituan's Leaf snowflake mode: 41 bits of milliseconds from
// Twitter's epoch (2010-11-04T01:42:54.657Z), a 10-bit worker ID and a 12-bit sequence.
func Leaf() Layout {
	return Layout{Epoch: twitterEpoch, Unit: time.Millisecond, TimeBits: 41, WorkerBits: 10, SeqBits: 12}
}

// Bwmarrin returns the default layout of github.com/bwmarrin/snowflake: the same as Leaf,
// with its node number as the worker ID (NodeBits 10, StepBits 12, Epoch 1288834974657).
func Bwmarrin() Layout { return Leaf() }

// SonyflakeV1 returns the layout of sonyflake v1 (github.com/sony/sonyflake before v2)
// with its default settings: 39 bits of 10 ms units from 2014-09-01 UTC, then an 8-bit
// sequence, then a 16-bit machine ID in the low bits (ID = time<<24 | seq<<16 | machine).
func SonyflakeV1() Layout {
	return Layout{Epoch: sonyflakeV1Epoch, Unit: 10 * time.Millisecond, TimeBits: 39, WorkerBits: 16, SeqBits: 8, Order: TimeSeqWorker}
}

// SonyflakeV2 returns the layout of github.com/sony/sonyflake/v2 with its default settings;
// it is [Sonyflake].
func SonyflakeV2() Layout { return Sonyflake() }

// UIDGenerator returns the default layout of Baidu's uid-generator (DefaultUidGenerator and
// CachedUidGenerator): 28 bits of seconds from epochSeconds 1463673600
// (2016-05-19T16:00:00Z), a 22-bit worker ID and a 13-bit sequence. Its 28 bits of seconds
// ran out on 2024-11-20: the layout still decodes the IDs issued, and a Generator refuses
// it (ErrLifetimeOver), as uid-generator itself does; continue its IDs with a layout of
// more time bits whose IDs are all larger (see [CheckFloor]).
func UIDGenerator() Layout {
	return Layout{Epoch: uidGeneratorEpoch, Unit: time.Second, TimeBits: 28, WorkerBits: 22, SeqBits: 13}
}

// preset is a named layout.
type preset struct {
	name string
	mk   func() Layout
}

// presetList is every preset, in the order PresetNames lists them.
var presetList = []preset{
	{"classic", Classic},
	{"classic-dc", ClassicDC},
	{"sonyflake", Sonyflake},
	{"jsonsafe", JSONSafe},
	{"leaf", Leaf},
	{"twitter", Twitter},
	{"bwmarrin", Bwmarrin},
	{"sonyflake-v1", SonyflakeV1},
	{"sonyflake-v2", SonyflakeV2},
	{"uid-generator", UIDGenerator},
}

// presetKey folds a preset name: case, '-' and '_' do not matter ("classicdc",
// "classic-dc" and "Classic_DC" are one name).
func presetKey(s string) string {
	return strings.NewReplacer("-", "", "_", "").Replace(strings.ToLower(strings.TrimSpace(s)))
}

// PresetNames returns the names [Preset] knows, in a fixed order.
func PresetNames() []string {
	out := make([]string, len(presetList))
	for i, p := range presetList {
		out[i] = p.name
	}
	return out
}

// Preset returns the layout named name: one of PresetNames, compared ignoring case, '-'
// and '_'. An unknown name is an error wrapping ErrInvalidLayout that lists the names.
func Preset(name string) (Layout, error) {
	k := presetKey(name)
	for _, p := range presetList {
		if presetKey(p.name) == k {
			return p.mk(), nil
		}
	}
	return Layout{}, fmt.Errorf("snowflake: unknown layout %q (want %s, or fields such as \"epoch=2010-11-04T01:42:54.657Z,unit=1ms,bits=41/10/12\"): %w",
		name, strings.Join(PresetNames(), ", "), ErrInvalidLayout)
}

// PresetName returns the name of the preset l is equal to ([Layout.Equal]), the first in
// PresetNames order ("leaf" before "bwmarrin"), or "" if none.
func PresetName(l Layout) string {
	for _, p := range presetList {
		if p.mk().Equal(l) {
			return p.name
		}
	}
	return ""
}

// ParseLayout reads a layout from text: a preset name (see [Preset]), or comma-separated
// fields, optionally after a preset name whose fields they change:
//
//	epoch=2010-11-04T01:42:54.657Z   an RFC 3339 time, a date (UTC) or Unix milliseconds
//	unit=1ms                         a Go duration, at least 1ms
//	bits=41/10/12                    time, worker and sequence bits
//	order=time-seq-worker            or time-worker-seq (the default)
//	datacenter=5                     worker bits read as a datacenter number
//	width=53                         the bits the fields fill (63 if unset)
//
// so "sonyflake-v1,epoch=2020-01-01" is sonyflake v1's layout from another start time.
// Fields without a preset must give epoch, unit and bits. [Layout.Spec] writes this form.
// The layout is validated: errors are *LayoutError or wrap ErrInvalidLayout.
func ParseLayout(s string) (Layout, error) {
	parts := strings.Split(s, ",")
	var l Layout
	have := map[string]bool{}
	for i, part := range parts {
		part = strings.TrimSpace(part)
		key, val, ok := strings.Cut(part, "=")
		if !ok {
			if i > 0 {
				return Layout{}, fmt.Errorf("snowflake: layout %q: %q is not key=value: %w", s, part, ErrInvalidLayout)
			}
			p, err := Preset(part)
			if err != nil {
				return Layout{}, err
			}
			l = p
			have["epoch"], have["unit"], have["bits"] = true, true, true
			continue
		}
		key, val = strings.ToLower(strings.TrimSpace(key)), strings.TrimSpace(val)
		if err := l.setField(key, val); err != nil {
			return Layout{}, fmt.Errorf("snowflake: layout %q: %s: %w", s, err, ErrInvalidLayout)
		}
		have[key] = true
	}
	for _, k := range []string{"epoch", "unit", "bits"} {
		if !have[k] {
			return Layout{}, fmt.Errorf("snowflake: layout %q: no %s (give a preset name or epoch, unit and bits): %w", s, k, ErrInvalidLayout)
		}
	}
	if err := l.Validate(); err != nil {
		return Layout{}, err
	}
	return l, nil
}

// setField sets the field key of ParseLayout's form.
func (l *Layout) setField(key, val string) error {
	switch key {
	case "epoch":
		t, err := ParseEpoch(val)
		if err != nil {
			return err
		}
		l.Epoch = t
	case "unit":
		d, err := time.ParseDuration(val)
		if err != nil {
			return fmt.Errorf("unit %q: want a duration such as 1ms or 10ms", val)
		}
		l.Unit = d
	case "bits":
		f := strings.Split(val, "/")
		if len(f) != 3 {
			return fmt.Errorf("bits %q: want time/worker/sequence, as 41/10/12", val)
		}
		var b [3]uint8
		for i, s := range f {
			n, err := strconv.ParseUint(strings.TrimSpace(s), 10, 8)
			if err != nil || n > 63 {
				return fmt.Errorf("bits %q: %q is not a number of bits 0 to 63", val, s)
			}
			b[i] = uint8(n)
		}
		l.TimeBits, l.WorkerBits, l.SeqBits = b[0], b[1], b[2]
	case "order":
		switch strings.ToLower(val) {
		case "time-worker-seq":
			l.Order = TimeWorkerSeq
		case "time-seq-worker":
			l.Order = TimeSeqWorker
		default:
			return fmt.Errorf("order %q: want time-worker-seq or time-seq-worker", val)
		}
	case "datacenter", "width":
		n, err := strconv.ParseUint(val, 10, 8)
		if err != nil || n > 63 {
			return fmt.Errorf("%s %q: want a number of bits 0 to 63", key, val)
		}
		if key == "width" {
			l.Width = uint8(n)
		} else {
			l.DatacenterBits = uint8(n)
		}
	default:
		return fmt.Errorf("unknown field %q (want epoch, unit, bits, order, datacenter or width)", key)
	}
	return nil
}

// ParseEpoch reads an epoch as ParseLayout does: an RFC 3339 time
// ("2010-11-04T01:42:54.657Z"), a date taken as midnight UTC ("2014-09-01"), or Unix
// milliseconds ("1288834974657", the form Java peers configure).
func ParseEpoch(s string) (time.Time, error) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return time.UnixMilli(n).UTC(), nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("epoch %q: want an RFC 3339 time, a date (2006-01-02, UTC) or Unix milliseconds", s)
}

// Spec returns the layout in the form ParseLayout reads: its preset name when it is one,
// else its fields ("epoch=2010-11-04T01:42:54.657Z,unit=1ms,bits=41/10/12").
func (l Layout) Spec() string {
	if n := PresetName(l); n != "" {
		return n
	}
	f := []string{
		"epoch=" + l.Epoch.UTC().Format(time.RFC3339Nano),
		"unit=" + l.Unit.String(),
		fmt.Sprintf("bits=%d/%d/%d", l.TimeBits, l.WorkerBits, l.SeqBits),
	}
	if l.Order != TimeWorkerSeq {
		f = append(f, "order="+l.Order.String())
	}
	if l.DatacenterBits != 0 {
		f = append(f, fmt.Sprintf("datacenter=%d", l.DatacenterBits))
	}
	if l.Width != 0 && l.Width != 63 {
		f = append(f, fmt.Sprintf("width=%d", l.Width))
	}
	return strings.Join(f, ",")
}

// CheckFloor reports, as a *FloorError, whether a generator of layout l starting at now
// could not stay above floor, the highest ID already issued by the system it continues
// (0: none). Every ID stamped in a tick after the floor's is above it, whatever the
// worker and sequence, and a generator with [Options.Floor] stamps nothing in the floor's
// tick or before, so l passes when the clock's tick under l is not behind the floor's
// time field: a floor read in the current tick costs at most a tick's wait. The floor
// bounds what was issued before it was read: a peer still issuing beside idgen needs a
// worker-ID range of its own.
func CheckFloor(l Layout, floor ID, now time.Time) error {
	if floor < 0 {
		return fmt.Errorf("snowflake: floor %d is negative: %w", int64(floor), ErrInvalidID)
	}
	if floor == 0 {
		return nil
	}
	if err := l.validate(now); err != nil {
		return err
	}
	w := l.width()
	ft := int64(floor) >> (l.WorkerBits + l.SeqBits)
	nt := l.Tick(now)
	if (w < 63 && int64(floor) >= 1<<w) || nt < ft {
		e := &FloorError{Floor: floor, Layout: l, FloorTick: ft, NextTick: nt, Now: now}
		for _, p := range presetList {
			pl := p.mk()
			if pl.validate(now) == nil && now.Before(pl.End()) && pl.Tick(now) >= int64(floor)>>(pl.WorkerBits+pl.SeqBits) &&
				(pl.width() == 63 || int64(floor) < 1<<pl.width()) {
				e.Continue = append(e.Continue, p.name)
			}
		}
		return e
	}
	return nil
}
