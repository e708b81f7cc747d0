package tags

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/idgen/idgen/cmd/idgen-server/internal/config"
	v1 "github.com/idgen/idgen/idgenclient/idgenv1"
	"github.com/idgen/idgen/runtime/codec"
	"github.com/idgen/idgen/runtime/number"
	"github.com/idgen/idgen/runtime/segment"
	"github.com/idgen/idgen/runtime/snowflake"
	"github.com/idgen/idgen/runtime/typeid"
	"github.com/idgen/idgen/runtime/uuidv7"
)

// Source is what snowflake and number tags issue from: a *lease.Lease, or a
// *snowflake.Generator on a static worker ID.
type Source interface {
	NextContext(ctx context.Context) (snowflake.ID, error)
	NextN(ctx context.Context, n int) ([]snowflake.ID, error)
}

// Tag is one served tag and what it issues from. Safe for concurrent use.
type Tag struct {
	name   string
	kind   v1.Kind
	prefix string

	snow   Source             // snowflake, number
	layout snowflake.Layout   // snowflake, number
	format *number.Format     // number
	alloc  *segment.Allocator // segment
	store  string             // segment: the store's name
	// interleaved says the segment tag's store may return blocks with a stride
	// (tinyid's delta), whose runs only a Range caller that accepts a stride is given.
	interleaved bool
	// fromStore says the tag was found in the tag store (or created there), not
	// configured.
	fromStore bool

	issued atomic.Int64  // IDs handed out, for the rates (one add per call)
	rate   atomic.Uint64 // the latest interval's IDs per second, as float64 bits
}

// Spec is what a tag is made of. Name and Kind are required; the other fields are those
// of the kind: Source and Layout for snowflake and number tags, Prefix for snowflake
// (typed text), number and typeid tags, Format for number tags, Alloc, Store,
// Interleaved and FromStore for segment tags.
type Spec struct {
	Name   string
	Kind   v1.Kind
	Prefix string

	Source Source
	Layout snowflake.Layout
	Format *number.Format

	Alloc *segment.Allocator
	// Store is the name of the segment tag's store.
	Store string
	// Interleaved says the segment tag's store may return blocks with a stride
	// (tinyid's delta), whose runs only a Range caller that accepts a stride is given.
	Interleaved bool
	// FromStore says the tag was found in the tag store (or created there), not
	// configured.
	FromStore bool
}

// New returns the tag sp describes.
func New(sp Spec) *Tag {
	return &Tag{
		name: sp.Name, kind: sp.Kind, prefix: sp.Prefix,
		snow: sp.Source, layout: sp.Layout, format: sp.Format,
		alloc: sp.Alloc, store: sp.Store, interleaved: sp.Interleaved, fromStore: sp.FromStore,
	}
}

// Name returns the tag's name.
func (t *Tag) Name() string { return t.name }

// Kind returns the tag's kind.
func (t *Tag) Kind() v1.Kind { return t.kind }

// Prefix returns the tag's prefix: a typed snowflake tag's, a TypeID tag's or a business
// number's; "" for none.
func (t *Tag) Prefix() string { return t.prefix }

// Layout returns the layout of a snowflake or number tag's IDs.
func (t *Tag) Layout() snowflake.Layout { return t.layout }

// Format returns a number tag's format, nil for other kinds.
func (t *Tag) Format() *number.Format { return t.format }

// Alloc returns a segment tag's allocator, nil for other kinds.
func (t *Tag) Alloc() *segment.Allocator { return t.alloc }

// Store returns the name of a segment tag's store, "" for other kinds.
func (t *Tag) Store() string { return t.store }

// FromStore reports whether the tag was found in the tag store (or created there), not
// configured.
func (t *Tag) FromStore() bool { return t.fromStore }

// Issued returns how many IDs the tag handed out since it was made.
func (t *Tag) Issued() int64 { return t.issued.Load() }

// Rate returns the rate SetRate kept last, in IDs per second.
func (t *Tag) Rate() float64 { return math.Float64frombits(t.rate.Load()) }

// SetRate keeps perSecond, the latest interval's IDs per second, for Rate.
func (t *Tag) SetRate(perSecond float64) { t.rate.Store(math.Float64bits(perSecond)) }

// KindOf returns the API's kind of the configuration's kind s (config.KindSnowflake,
// ...), KIND_UNSPECIFIED for another.
func KindOf(s string) v1.Kind {
	switch s {
	case config.KindSnowflake:
		return v1.Kind_KIND_SNOWFLAKE
	case config.KindSegment:
		return v1.Kind_KIND_SEGMENT
	case config.KindNumber:
		return v1.Kind_KIND_NUMBER
	case config.KindUUID7:
		return v1.Kind_KIND_UUID7
	case config.KindTypeID:
		return v1.Kind_KIND_TYPEID
	}
	return v1.Kind_KIND_UNSPECIFIED
}

// KindName is the configuration's name of k.
func KindName(k v1.Kind) string {
	return strings.ToLower(strings.TrimPrefix(k.String(), "KIND_"))
}

// WrongKindError is a call that does not fit the tag's kind: Tag is the tag's name,
// Kind its kind's name (KindName), Call what is wrong and what to use instead.
type WrongKindError struct{ Tag, Kind, Call string }

// Error implements error.
func (e *WrongKindError) Error() string {
	return fmt.Sprintf("tag %q is a %s tag: %s", e.Tag, e.Kind, e.Call)
}

// Next returns one ID and its text.
func (t *Tag) Next(ctx context.Context) (int64, string, error) {
	id, text, err := t.next1(ctx)
	if err == nil {
		t.issued.Add(1)
	}
	return id, text, err
}

func (t *Tag) next1(ctx context.Context) (int64, string, error) {
	switch t.kind {
	case v1.Kind_KIND_SEGMENT:
		id, err := t.alloc.NextInt64(ctx)
		return id, strconv.FormatInt(id, 10), err
	case v1.Kind_KIND_SNOWFLAKE:
		id, err := t.snow.NextContext(ctx)
		return int64(id), t.text(int64(id)), err
	case v1.Kind_KIND_NUMBER:
		id, err := t.snow.NextContext(ctx)
		if err != nil {
			return 0, "", err
		}
		s, err := t.format.Format(id)
		return int64(id), s, err
	case v1.Kind_KIND_UUID7:
		u, err := uuidv7.New()
		return 0, string(codec.AppendUUID(nil, u)), err
	case v1.Kind_KIND_TYPEID:
		u, err := uuidv7.New()
		return 0, typeid.Format(t.prefix, u), err
	}
	return 0, "", fmt.Errorf("tags: tag %q of unknown kind", t.name)
}

// List returns n IDs (int kinds) and texts (text kinds). On error it returns what it
// took before, which the caller drops (a gap, never a repeat).
func (t *Tag) List(ctx context.Context, n int) ([]int64, []string, error) {
	ids, texts, err := t.list1(ctx, n)
	if err == nil {
		t.issued.Add(int64(n))
	}
	return ids, texts, err
}

func (t *Tag) list1(ctx context.Context, n int) ([]int64, []string, error) {
	switch t.kind {
	case v1.Kind_KIND_SEGMENT:
		ids, err := t.alloc.NextN(ctx, n)
		return ids, nil, err
	case v1.Kind_KIND_SNOWFLAKE, v1.Kind_KIND_NUMBER:
		sids, err := t.snow.NextN(ctx, n)
		if err != nil {
			return nil, nil, err
		}
		ids := make([]int64, len(sids))
		for i, id := range sids {
			ids[i] = int64(id)
		}
		if t.kind == v1.Kind_KIND_SNOWFLAKE {
			if t.prefix == "" {
				return ids, nil, nil
			}
			texts := make([]string, len(ids))
			for i, id := range ids {
				texts[i] = t.text(id)
			}
			return ids, texts, nil
		}
		texts := make([]string, len(sids))
		buf := make([]byte, 0, t.format.Width()*len(sids))
		for i, id := range sids {
			start := len(buf)
			if buf, err = t.format.Append(buf, id); err != nil {
				return nil, nil, err
			}
			texts[i] = string(buf[start:])
		}
		return ids, texts, nil
	default:
		texts := make([]string, n)
		for i := range texts {
			_, s, err := t.next1(ctx)
			if err != nil {
				return nil, nil, err
			}
			texts[i] = s
		}
		return nil, texts, nil
	}
}

// text is the text of a snowflake tag's ID: decimal, or with a prefix the typed form
// "usr_" and 13 base32 characters that generated types write (runtime/codec).
func (t *Tag) text(id int64) string {
	if t.prefix == "" {
		return strconv.FormatInt(id, 10)
	}
	return string(codec.AppendPrefixed(make([]byte, 0, len(t.prefix)+1+codec.PrefixedLen), t.prefix, id))
}

// Range hands out up to n IDs of a segment tag, every r.Stride-th. A caller that does not
// accept a stride (one that would read the run as consecutive IDs and take those of
// another database) gets one ID from a tag whose store interleaves, which it reads right
// whatever the stride.
func (t *Tag) Range(ctx context.Context, n int64, acceptStride bool) (segment.Range, error) {
	if t.kind != v1.Kind_KIND_SEGMENT {
		return segment.Range{}, &WrongKindError{t.name, KindName(t.kind), "Range is for segment tags (use List)"}
	}
	if t.interleaved && !acceptStride {
		n = 1
	}
	r, err := t.alloc.NextRange(ctx, n)
	if err == nil {
		t.issued.Add(r.Len())
	}
	return r, err
}

// errUnreadable says an input is not an ID of a tag.
var errUnreadable = errors.New("not an ID of this tag")

// Decode reads s as an ID of t, its time given in UTC and in zone.
func (t *Tag) Decode(s string, zone *time.Location) (*v1.DecodeResponse, error) {
	r := &v1.DecodeResponse{Tag: t.name, Kind: t.kind}
	var tm time.Time
	switch t.kind {
	case v1.Kind_KIND_SEGMENT:
		id, err := strconv.ParseInt(s, 10, 64)
		if err != nil || id <= 0 {
			return nil, fmt.Errorf("%w: a segment ID is a positive decimal int64", errUnreadable)
		}
		r.Id = id
		return r, nil
	case v1.Kind_KIND_SNOWFLAKE, v1.Kind_KIND_NUMBER:
		var id snowflake.ID
		if v, err := strconv.ParseInt(s, 10, 64); err == nil {
			id = snowflake.ID(v)
		} else if t.kind == v1.Kind_KIND_SNOWFLAKE && t.prefix != "" {
			v, err := codec.ParsePrefixed(t.name, t.prefix, s)
			if err != nil {
				return nil, fmt.Errorf("%w: %v", errUnreadable, err)
			}
			id = snowflake.ID(v)
		} else if t.kind == v1.Kind_KIND_NUMBER {
			if id, err = t.format.Parse(s); err != nil {
				return nil, fmt.Errorf("%w: %v", errUnreadable, err)
			}
		} else {
			return nil, fmt.Errorf("%w: a snowflake ID is a decimal int64", errUnreadable)
		}
		p, err := t.layout.Decode(id)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", errUnreadable, err)
		}
		r.Id, r.Worker, r.Datacenter, r.Machine, r.Sequence = int64(id), p.Worker, p.Datacenter, p.Machine, p.Seq
		tm = t.layout.TimeOf(p.Tick)
	case v1.Kind_KIND_UUID7:
		u, err := codec.ParseUUID("uuid7", s)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", errUnreadable, err)
		}
		tm = codec.UUIDTime(u)
	case v1.Kind_KIND_TYPEID:
		u, err := typeid.Parse(t.prefix, s)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", errUnreadable, err)
		}
		tm = codec.UUIDTime(u)
	}
	r.Time = timestamppb.New(tm)
	r.LocalTime = tm.In(zone).Format(time.RFC3339Nano)
	return r, nil
}

// Info describes t in the API's form.
func (t *Tag) Info() *v1.TagInfo {
	ti := &v1.TagInfo{Name: t.name, Kind: t.kind, Prefix: t.prefix}
	if t.kind == v1.Kind_KIND_SNOWFLAKE || t.kind == v1.Kind_KIND_NUMBER {
		ti.Layout = layoutProto(t.layout)
	}
	return ti
}

// layoutProto returns l in the API's form.
func layoutProto(l snowflake.Layout) *v1.Layout {
	w := uint32(l.Width)
	if w == 0 {
		w = 63
	}
	return &v1.Layout{
		Epoch:                timestamppb.New(l.Epoch),
		UnitNanos:            int64(l.Unit),
		TimeBits:             uint32(l.TimeBits),
		WorkerBits:           uint32(l.WorkerBits),
		SequenceBits:         uint32(l.SeqBits),
		DatacenterBits:       uint32(l.DatacenterBits),
		SequenceBeforeWorker: l.Order == snowflake.TimeSeqWorker,
		Width:                w,
	}
}
