// Package idgen holds what generated ID types and the ORM plugins share: where new IDs come
// from (a Source, with a process-wide default set once at start), the interface through
// which a plugin fills an ID of any generated type without knowing the type, and the
// registry every generated type joins at init, which tells the type of a prefixed text ID
// (Resolve) and lists the types for the plugins (Types).
//
// The generator itself lives in runtime/snowflake, the code generator in cmd/idgen-gen.
package idgen

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/idgen/idgen/runtime/snowflake"
)

// GeneratedCodeV1 is referenced by code that cmd/idgen-gen writes, so that generated code
// fails to compile against a runtime it was not written for.
const GeneratedCodeV1 = true

// Source hands out int64 IDs. *snowflake.Generator is one; so is anything that allocates
// dense IDs from a shared store.
type Source interface {
	// NextInt64 returns a new ID, waiting at most as long as ctx allows.
	NextInt64(ctx context.Context) (int64, error)
}

// ErrNoSource is returned when an ID is needed, no Source was given and no default is set.
var ErrNoSource = errors.New("idgen: no ID source: pass one, or call idgen.SetDefault at start")

var defaultSource atomic.Pointer[Source]

// SetDefault sets the Source used when none is given: by generated constructors such as
// NewUserID and by the plugins. Call it once at start, like slog.SetDefault; nil unsets it.
func SetDefault(s Source) {
	if s == nil {
		defaultSource.Store(nil)
		return
	}
	defaultSource.Store(&s)
}

// Default returns the Source set by SetDefault, or nil.
func Default() Source {
	if p := defaultSource.Load(); p != nil {
		return *p
	}
	return nil
}

// Next returns a new ID from src, or from the default source when src is nil.
func Next(ctx context.Context, src Source) (int64, error) {
	if src == nil {
		if src = Default(); src == nil {
			return 0, ErrNoSource
		}
	}
	return src.NextInt64(ctx)
}

// NextSnowflake returns a new ID from src (or the default source) as a snowflake ID of
// layout, for types that decode their IDs: business numbers and typed IDs with a time. A
// source that reports a different layout is an error. Generated constructors call it; so
// can the constructor of a hand-written ID type.
func NextSnowflake(ctx context.Context, src Source, layout snowflake.Layout) (snowflake.ID, error) {
	if src == nil {
		if src = Default(); src == nil {
			return 0, ErrNoSource
		}
	}
	if l, ok := src.(interface{ Layout() snowflake.Layout }); ok && !l.Layout().Equal(layout) {
		return 0, fmt.Errorf("idgen: the source issues IDs of layout %v, the type expects %v", l.Layout(), layout)
	}
	v, err := src.NextInt64(ctx)
	return snowflake.ID(v), err
}

// ErrTimeless is returned by NextTimed for a source whose IDs are counters (a
// runtime/segment Allocator): a business number made from one would show a time that
// never happened.
var ErrTimeless = errors.New("idgen: the source hands out counters, not snowflake IDs: a business number needs a time (use a snowflake generator or lease)")

// Timeless is implemented by sources whose IDs are dense counters with no time, worker or
// sequence in them, such as runtime/segment's Allocator. Typed snowflake IDs take such a
// source (their Time and Parts are then meaningless); business numbers refuse it.
type Timeless interface {
	Source
	// Timeless reports whether the IDs carry no time.
	Timeless() bool
}

// NextTimed is NextSnowflake for types whose text shows the ID's time (business numbers):
// it also refuses a Timeless source with ErrTimeless, before taking an ID from it.
func NextTimed(ctx context.Context, src Source, layout snowflake.Layout) (snowflake.ID, error) {
	if src == nil {
		if src = Default(); src == nil {
			return 0, ErrNoSource
		}
	}
	if t, ok := src.(Timeless); ok && t.Timeless() {
		return 0, ErrTimeless
	}
	return NextSnowflake(ctx, src, layout)
}

// Generated is implemented by the pointer of every type cmd/idgen-gen writes. A plugin
// fills a zero ID through it.
type Generated interface {
	// IsZero reports whether the ID is unset.
	IsZero() bool
	// Generate sets a new ID taken from src, or from the default source when src is nil.
	// Kinds that need no source (UUIDv7, TypeID) ignore it.
	Generate(ctx context.Context, src Source) error
}
