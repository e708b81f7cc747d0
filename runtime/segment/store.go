package segment

import "context"

// Range is a block of IDs reserved for one process: First through Last, both included.
type Range struct {
	First, Last int64
}

// Len returns the number of IDs in r.
func (r Range) Len() int64 { return r.Last - r.First + 1 }

// Store reserves blocks of IDs per tag in a shared place.
type Store interface {
	// Reserve moves tag's counter up by step in one atomic step and returns the block it
	// passed over; a tag seen for the first time starts at 1.
	Reserve(ctx context.Context, tag string, step int64) (Range, error)
}
