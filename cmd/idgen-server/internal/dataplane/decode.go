package dataplane

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/idgen/idgen/cmd/idgen-server/internal/auth"
	"github.com/idgen/idgen/cmd/idgen-server/internal/tags"
	v1 "github.com/idgen/idgen/idgenclient/idgenv1"
	"github.com/idgen/idgen/runtime/codec"
	"github.com/idgen/idgen/runtime/number"
	"github.com/idgen/idgen/runtime/snowflake"
)

// maxDecodeLen bounds the input of a decode.
const maxDecodeLen = 256

// futureSlack is how far past the server's clock a decoded time may be before the input
// is called out of range: no ID of this layout was made then.
const futureSlack = time.Minute

// Reasons a DecodeError gives.
const (
	ReasonEmpty        = "empty"
	ReasonTooLong      = "too long"
	ReasonNotAnID      = "not an ID"
	ReasonOutOfRange   = "out of range"
	ReasonUnknownPfx   = "unknown prefix"
	ReasonBadCheck     = "bad check digit"
	ReasonBadNumber    = "bad number"
	ReasonBadText      = "bad text form"
	ReasonNotUUIDv7    = "not a UUIDv7"
	ReasonNoTimeInside = "no time inside"
)

// DecodeError says why an input is not an ID of a tag the caller may use: Reason is one
// of the Reason constants ("bad check digit", "unknown prefix", "out of range", ...),
// Detail what exactly is wrong, in words for the person who pasted it.
type DecodeError struct {
	Input  string
	Reason string
	Detail string
}

// Error implements error.
func (e *DecodeError) Error() string {
	in := e.Input
	if len(in) > 64 {
		in = in[:64] + "..."
	}
	return fmt.Sprintf("%q: %s: %s", in, e.Reason, e.Detail)
}

// Decode reads input as an ID of any of the served tags g grants, by its shape: decimal
// (a snowflake ID under the layout, or a segment counter), prefix_ and base32 (a typed
// snowflake ID or a TypeID), a UUID (UUIDv7), or a business number (its prefix, its
// check digit). The time is given in UTC and in zone. An input that fits no tag is a
// *DecodeError saying exactly why: an unknown prefix (naming the prefixes there are), a
// bad check digit, a value out of range.
func Decode(served []*tags.Tag, g *auth.Grant, input string, zone *time.Location) (*v1.DecodeResponse, error) {
	in := strings.TrimSpace(input)
	fail := func(reason, format string, args ...any) error {
		return &DecodeError{Input: in, Reason: reason, Detail: fmt.Sprintf(format, args...)}
	}
	switch {
	case in == "":
		return nil, fail(ReasonEmpty, "paste an ID: a decimal ID, a typed ID (usr_...), a TypeID, a UUIDv7 or a business number (ORD...)")
	case len(in) > maxDecodeLen:
		return nil, fail(ReasonTooLong, "%d bytes; no ID is longer than %d", len(in), maxDecodeLen)
	}
	var allowed []*tags.Tag
	for _, t := range served {
		if g.Allows(t.Name()) {
			allowed = append(allowed, t)
		}
	}
	of := func(kinds ...v1.Kind) []*tags.Tag {
		var out []*tags.Tag
		for _, t := range allowed {
			if slices.Contains(kinds, t.Kind()) {
				out = append(out, t)
			}
		}
		return out
	}
	done := func(tag string, r *v1.DecodeResponse, err error) (*v1.DecodeResponse, error) {
		if err != nil {
			return nil, err
		}
		if r.Time != nil {
			if tm := r.Time.AsTime(); tm.After(time.Now().Add(futureSlack)) {
				return nil, fail(ReasonOutOfRange, "its time, %s, is in the future: not an ID of tag %q's layout", tm.UTC().Format(time.RFC3339), tag)
			}
			r.LocalTime = r.Time.AsTime().In(zone).Format(time.RFC3339Nano)
		}
		return r, nil
	}

	// Decimal: a snowflake ID (or a number tag's ID), else a segment counter.
	if isDigits(strings.TrimPrefix(in, "-")) {
		v, err := strconv.ParseInt(in, 10, 64)
		switch {
		case err != nil && errors.Is(err, strconv.ErrRange):
			return nil, fail(ReasonOutOfRange, "above the largest ID, %d (int64)", int64(1<<63-1))
		case v < 0:
			return nil, fail(ReasonOutOfRange, "negative; IDs are positive")
		case v == 0:
			return nil, fail(ReasonOutOfRange, "0 is no tag's ID")
		}
		if ts := of(v1.Kind_KIND_SNOWFLAKE, v1.Kind_KIND_NUMBER); len(ts) > 0 {
			t := ts[0]
			if _, err := t.Layout().Decode(snowflake.ID(v)); err != nil {
				return nil, fail(ReasonOutOfRange, "%v", err)
			}
			r, err := t.Decode(in, zone)
			if err != nil {
				return nil, fail(ReasonOutOfRange, "%v", err)
			}
			return done(t.Name(), r, nil)
		}
		if ts := of(v1.Kind_KIND_SEGMENT); len(ts) > 0 {
			return &v1.DecodeResponse{Tag: ts[0].Name(), Kind: v1.Kind_KIND_SEGMENT, Id: v}, nil
		}
		return nil, fail(ReasonNotAnID, "a decimal ID, and no snowflake or segment tag is served")
	}

	// A UUID: version 7 holds its time.
	if len(in) == 36 && strings.Count(in, "-") == 4 {
		u, err := codec.ParseUUID("uuid", in)
		if err != nil {
			return nil, fail(ReasonNotAnID, "%s", reasonOf(err))
		}
		if v := u[6] >> 4; v != 7 {
			return nil, fail(ReasonNotUUIDv7, "a UUID of version %d: only version 7 holds a time", v)
		}
		r := &v1.DecodeResponse{Kind: v1.Kind_KIND_UUID7}
		if ts := of(v1.Kind_KIND_UUID7); len(ts) > 0 {
			r.Tag = ts[0].Name()
		}
		tm := codec.UUIDTime(u)
		r.Time = timestamppb.New(tm)
		return done(r.Tag, r, nil)
	}

	// prefix_suffix: a typed snowflake ID or a TypeID.
	if i := strings.LastIndexByte(in, '_'); i > 0 {
		prefix := in[:i]
		var known []string
		for _, t := range of(v1.Kind_KIND_SNOWFLAKE, v1.Kind_KIND_TYPEID) {
			if t.Prefix() == "" {
				continue
			}
			known = append(known, t.Prefix()+"_")
			if t.Prefix() != prefix {
				continue
			}
			r, err := t.Decode(in, zone)
			if err != nil {
				return nil, fail(ReasonBadText, "%s", reasonOf(err))
			}
			return done(t.Name(), r, nil)
		}
		return nil, fail(ReasonUnknownPfx, "%q is no tag's prefix; %s", prefix+"_", listOf("the typed prefixes are", known))
	}

	// A business number: a prefix of letters, then digits.
	lead := strings.IndexFunc(in, func(r rune) bool { return r >= '0' && r <= '9' })
	if lead > 0 && isDigits(in[lead:]) {
		nums := of(v1.Kind_KIND_NUMBER)
		sort.SliceStable(nums, func(i, j int) bool { return len(nums[i].Prefix()) > len(nums[j].Prefix()) })
		var known []string
		for _, t := range nums {
			known = append(known, t.Prefix())
			if !strings.HasPrefix(in, t.Prefix()) || t.Prefix() == "" {
				continue
			}
			if _, err := t.Format().Parse(in); err != nil {
				var pe *number.ParseError
				if errors.As(err, &pe) {
					switch pe.Reason {
					case "check digit":
						return nil, fail(ReasonBadCheck, "the last digit does not match the others: a digit is mistyped or two are swapped")
					case "time", "unique part":
						return nil, fail(ReasonOutOfRange, "%s", strings.TrimPrefix(err.Error(), "number: parse "+strconv.Quote(in)+": "))
					}
				}
				return nil, fail(ReasonBadNumber, "%s", strings.TrimPrefix(err.Error(), "number: parse "+strconv.Quote(in)+": "))
			}
			r, err := t.Decode(in, zone)
			if err != nil {
				return nil, fail(ReasonBadNumber, "%v", err)
			}
			return done(t.Name(), r, nil)
		}
		return nil, fail(ReasonUnknownPfx, "%q is no business number's prefix; %s", in[:lead], listOf("the prefixes are", known))
	}
	return nil, fail(ReasonNotAnID, "want a decimal ID, prefix_ and base32 (usr_...), a TypeID, a UUIDv7 or a business number (ORD...)")
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// reasonOf returns what a parser's error says is wrong, without the input repeated.
func reasonOf(err error) string {
	var ce *codec.ParseError
	if errors.As(err, &ce) {
		return ce.Reason
	}
	msg := err.Error()
	if i := strings.LastIndex(msg, ": "); i >= 0 {
		return msg[i+2:]
	}
	return msg
}

// listOf says which of a kind there are: "the prefixes are ORD, INV", or that there is
// none.
func listOf(what string, names []string) string {
	if len(names) == 0 {
		return "this server serves none (or this token grants none)"
	}
	return what + " " + strings.Join(names, ", ")
}
