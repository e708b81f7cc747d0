package segment

import (
	"context"
	"iter"
)

// Range is a block of IDs reserved for one process: First through Last, both included,
// every Stride-th (every one when Stride is 0 or 1). A stride above 1 comes from a store
// whose databases interleave their IDs (tinyid's delta and remainder).
type Range struct {
	First, Last int64
	// Stride is the distance between two IDs of the block: 0 or 1 for consecutive IDs.
	Stride int64
}

// step returns the distance between two IDs of r.
func (r Range) step() int64 { return max(1, r.Stride) }

// Len returns the number of IDs in r.
func (r Range) Len() int64 {
	if r.Last < r.First {
		return r.Last - r.First + 1
	}
	return (r.Last-r.First)/r.step() + 1
}

// Contains reports whether id is one of the IDs of r: within First through Last and a
// whole number of strides from First.
func (r Range) Contains(id int64) bool {
	return r.First <= id && id <= r.Last && (id-r.First)%r.step() == 0
}

// All returns the IDs of r in increasing order, every Stride-th from First.
func (r Range) All() iter.Seq[int64] {
	return func(yield func(int64) bool) {
		for i, n, st := int64(0), r.Len(), r.step(); i < n; i++ {
			if !yield(r.First + i*st) {
				return
			}
		}
	}
}

// Store reserves blocks of IDs per tag in a shared place.
//
// Reserve is the whole contract: one atomic step, so that blocks of concurrent callers,
// in any process, never overlap, and each block of a tag starts above every block
// returned before it. A Store keeps no time and no TTL (the Allocator times its own
// reservations); a store that ever does keeps them as package
// [github.com/idgen/idgen/runtime/millis] rounds, as the lease and idem stores do. The
// conformance suite in package segmenttest (Run) checks a Store against this contract.
type Store interface {
	// Reserve moves tag's counter up by step in one atomic step and returns the block it
	// passed over; a tag seen for the first time starts at 1.
	Reserve(ctx context.Context, tag string, step int64) (Range, error)
}

// NextCounter is implemented by a Store whose counter is the next ID it hands out, as
// Leaf's max_id is, where idgen's own table (SQL, Memory, Redis) and tinyid's keep the
// last one handed out. A block then starts above a floor only once the counter is above
// it (at least floor+1), and an Allocator's *FloorError says so (CounterIsNext).
type NextCounter interface {
	Store
	// CounterIsNext reports whether a tag's counter is the next ID the store hands out.
	CounterIsNext() bool
}
