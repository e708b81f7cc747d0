package segment

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Defaults for the zero fields of Options.
const (
	DefaultStep      = 1000
	DefaultMaxStep   = 1_000_000
	DefaultThreshold = 0.1
	DefaultTarget    = 15 * time.Minute
	DefaultTimeout   = 5 * time.Second
	DefaultRetry     = 100 * time.Millisecond
)

// Options tunes an Allocator. The zero value is usable.
type Options struct {
	// Step is the size of the first block: DefaultStep (within MinStep and MaxStep) if 0.
	Step int64
	// MinStep and MaxStep bound the adaptive step: Step and the larger of Step and
	// DefaultMaxStep if 0. Equal bounds fix the step.
	MinStep, MaxStep int64
	// Threshold is the fraction of a block handed out before the next one is reserved in
	// the background, in [0, 1): DefaultThreshold if 0. Larger values reserve later and
	// risk callers waiting when blocks drain fast.
	Threshold float64
	// Target is how long a block should last: the step doubles when a reservation comes
	// less than Target after the previous one and halves when it comes 2*Target or more
	// after it. DefaultTarget (Leaf's 15 minutes) if 0.
	Target time.Duration
	// Timeout bounds each reservation; DefaultTimeout if 0. Reservations do not use the
	// callers' contexts, since one reservation serves them all.
	Timeout time.Duration
	// Retry is how long after a failed reservation a caller with nothing buffered gets a
	// *UnavailableError at once instead of trying the store again; DefaultRetry if 0.
	Retry time.Duration
	// Now is the clock for Target and Retry; time.Now if nil.
	Now func() time.Time
	// Observer, when set, hears every reservation (metrics: the OpenTelemetry adapter
	// implements it).
	Observer Observer
	// Floor, when positive, is the highest ID already issued for the tag by the system
	// this allocator continues (another service, a table's max(id)): a block that does
	// not start above it is refused with a *FloorError and none of its IDs is served.
	Floor int64
}

// Observer hears an Allocator's reservations. Reserved is called once per reservation,
// from the goroutine that ran it, with no lock held and before the callers waiting for
// the block wake; it must be fast and safe for concurrent use. The IDs still buffered are
// in Allocator.Stats, for a gauge read when metrics are collected.
type Observer interface {
	// Reserved reports a reservation of a block of n IDs of tag (0 when it failed) that
	// took d, measured on the system clock; err is its error, nil on success.
	Reserved(tag string, n int64, d time.Duration, err error)
}

// Stats counts what an Allocator has done.
type Stats struct {
	// Reserved is the number of blocks reserved; Failed, the number of reservations
	// that failed.
	Reserved, Failed int64
	// Waited is the number of calls that waited for a reservation; in steady state it
	// stops growing.
	Waited int64
	// Step is the step of the latest reservation.
	Step int64
	// Buffered is the number of IDs reserved and not yet handed out: Current + Next.
	Buffered int64
	// Current is the number of IDs left in the block being handed out, CurrentSize its
	// size (0 before the first block); Next is the size of the block reserved ahead, 0
	// when there is none. They are the two halves of the double buffer.
	Current, CurrentSize, Next int64
	// Err is the latest reservation's error, nil before any and after a success: with
	// Buffered at 0 it says the tag cannot serve until a reservation succeeds.
	Err error
}

// HistoryLen is the number of reservations an Allocator keeps for History.
const HistoryLen = 32

// Reservation is one reservation of a block, as History reports it.
type Reservation struct {
	// At is when it started, on the clock of Options.Now.
	At time.Time
	// Step is the number of IDs it asked for: the adaptive step at the time.
	Step int64
	// Took is how long the store took to answer, on the system clock.
	Took time.Duration
	// Err is its error, nil when it succeeded.
	Err error
}

// Invariant: no block, and so no ID, is handed out twice.
//
//   - The one atomic step is Store.Reserve: a single-row UPDATE that adds step to max_id
//     and returns the new value in the same statement (RETURNING on PostgreSQL and SQLite,
//     LAST_INSERT_ID(max_id + step) read from the statement's own result on MySQL), or one
//     INCRBY on Redis (redissegment). The store serialises these on the row or key, so each
//     reservation moves the counter from m to m+step and gets exactly [m+1, m+step]; two
//     reservations, of any processes, never get overlapping blocks. The INSERT of a new tag
//     writes max_id 0 only if the row is missing (ON CONFLICT DO NOTHING, ON DUPLICATE KEY
//     UPDATE tag = tag), so nothing but a person or a store that forgets lowers a counter.
//   - A crash or a retry cannot re-issue a range, because nothing is ever asked for twice:
//     every attempt, the SQL store's retry of a statement the database aborted for
//     contention included, is a new increment, and a block is known only from the reply of
//     the Reserve that made it. A reply that is lost (timeout, connection cut after the
//     commit) is an error here and its block is dropped, never rebuilt from the step: a
//     gap. A process that dies takes its buffered IDs with it (nothing is given back to the
//     store), and after a restart it reserves above everything reserved before: gaps too.
//   - The buffer holds at most two blocks: cur, being handed out, and next, reserved ahead.
//     Prefetch may start one reservation at a time (fetching), only when next is empty, in
//     the background with its own Timeout; it may drop a block (failure, or one not above
//     high, the last ID of every block received, so that a store that moved back cannot
//     make this process repeat itself). It may not hand out an ID that did not come from a
//     successful Reserve, nor leave in the buffer an ID it handed out: an ID leaves cur
//     only by cur.First moving past it, under mu; next becomes cur once and is cleared as it
//     does, and is never overwritten, since no reservation starts while it is set.
//
// The other fields (prefetchAt, step, last, setSteps, err, errAt, curSize, history,
// stats) decide only when a block is
// reserved, how large, and what is reported; none of them takes part in which IDs exist.

// Allocator hands out the IDs of one tag from blocks reserved in a Store, reserving the
// next block in the background before the current one runs out. It implements
// idgen.Source. Safe for concurrent use; create one per tag and process. No ID is handed
// out twice by the Allocators of any processes sharing a store that does not forget; the
// comment above this type in allocator.go states why.
type Allocator struct {
	store Store
	tag   string
	o     Options

	mu         sync.Mutex
	cur        Range         // cur.First is the next ID; empty when First > Last
	prefetchAt int64         // handing out an ID at or above this reserves the next block
	next       *Range        // a reserved block waiting its turn
	high       int64         // the last ID of the latest block received (Options.Floor before any)
	fetching   chan struct{} // non-nil while a reservation runs; closed when it ends
	err        error         // the latest reservation's error, nil after a success
	errAt      time.Time
	step       int64     // the step of the latest reservation
	last       time.Time // when the latest successful reservation started
	setSteps   uint64    // SetStep calls, so a failed reservation does not undo one
	curSize    int64     // the size of cur when it was received
	history    [HistoryLen]Reservation
	recorded   int // reservations recorded in history, a ring
	stats      Stats
}

// CheckOptions reports whether New accepts opts: nil, or an error matching
// ErrInvalidOptions when, with the defaults New fills for zero fields, they are
// inconsistent (negative, Step outside [MinStep, MaxStep], Threshold outside [0, 1)).
// A configuration checks a tag's steps with it before anything is opened.
func CheckOptions(opts Options) error {
	if _, err := opts.resolve(); err != nil {
		return fmt.Errorf("%w: %v", ErrInvalidOptions, err)
	}
	return nil
}

// resolve returns o with the defaults filled in for its zero fields, or what is
// inconsistent in it: the one rule New and CheckOptions apply.
func (o Options) resolve() (Options, error) {
	if o.Step == 0 {
		o.Step = DefaultStep
		if o.MinStep > 0 {
			o.Step = max(o.Step, o.MinStep)
		}
		if o.MaxStep > 0 {
			o.Step = min(o.Step, o.MaxStep)
		}
	}
	if o.MinStep == 0 {
		o.MinStep = o.Step
	}
	if o.MaxStep == 0 {
		o.MaxStep = max(o.Step, DefaultMaxStep)
	}
	if o.Threshold == 0 {
		o.Threshold = DefaultThreshold
	}
	if o.Target == 0 {
		o.Target = DefaultTarget
	}
	if o.Timeout == 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Retry == 0 {
		o.Retry = DefaultRetry
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.MinStep <= 0 || o.Step < o.MinStep || o.MaxStep < o.Step || o.Threshold < 0 || o.Threshold >= 1 ||
		o.Target < 0 || o.Timeout < 0 || o.Retry < 0 {
		return o, fmt.Errorf("step %d in [%d, %d], threshold %v, target %v, timeout %v, retry %v",
			o.Step, o.MinStep, o.MaxStep, o.Threshold, o.Target, o.Timeout, o.Retry)
	}
	if o.Floor < 0 {
		return o, fmt.Errorf("floor %d is negative", o.Floor)
	}
	return o, nil
}

// New returns an Allocator of tag's IDs from store. It reserves nothing until the first
// ID is asked for. It fails with an error matching ErrInvalidOptions if store is nil, tag
// is empty or the options are inconsistent (negative, Step outside [MinStep, MaxStep],
// Threshold outside [0, 1)).
func New(store Store, tag string, opts Options) (*Allocator, error) {
	if store == nil || tag == "" {
		return nil, fmt.Errorf("%w: New needs a store and a tag", ErrInvalidOptions)
	}
	o, err := opts.resolve()
	if err != nil {
		return nil, fmt.Errorf("%w for tag %q: %v", ErrInvalidOptions, tag, err)
	}
	return &Allocator{store: store, tag: tag, o: o, step: o.Step, cur: Range{First: 1, Last: 0}, high: o.Floor}, nil
}

// Timeless reports true: the IDs are counters with no time in them, so a generated type's
// Time and Parts say nothing about them, and business numbers (idgen.NextTimed) refuse an
// Allocator as their source with idgen.ErrTimeless.
func (a *Allocator) Timeless() bool { return true }

// Tag returns the business tag the Allocator serves.
func (a *Allocator) Tag() string { return a.tag }

// Stats returns the counters.
func (a *Allocator) Stats() Stats {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.stats
	s.Step = a.step
	s.Current, s.CurrentSize = max(0, a.cur.Len()), a.curSize
	if a.next != nil {
		s.Next = a.next.Len()
	}
	s.Buffered = s.Current + s.Next
	s.Err = a.err
	return s
}

// History returns the latest reservations, at most HistoryLen, oldest first: how the
// adaptive step moved, and each reservation's latency and error.
func (a *Allocator) History() []Reservation {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := min(a.recorded, HistoryLen)
	out := make([]Reservation, 0, n)
	for i := a.recorded - n; i < a.recorded; i++ {
		out = append(out, a.history[i%HistoryLen])
	}
	return out
}

// SetStep makes step the size of the next reservation; the step adapts from there as
// before. MinStep and MaxStep widen to take step in when it is outside them, and never
// narrow. A reservation already running keeps the step it asked for, and the blocks
// already reserved are served as they are. A step that is not positive is refused with
// an error matching ErrInvalidOptions.
func (a *Allocator) SetStep(step int64) error {
	if step <= 0 {
		return fmt.Errorf("%w for tag %q: SetStep(%d): want a positive step", ErrInvalidOptions, a.tag, step)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.step = step
	a.o.MinStep, a.o.MaxStep = min(a.o.MinStep, step), max(a.o.MaxStep, step)
	a.last = time.Time{} // the next reservation takes step as it is
	a.setSteps++
	return nil
}

// NextInt64 returns the next ID, waiting for a reservation only when nothing is buffered,
// at most as long as ctx allows. When the store cannot reserve a block and nothing is
// buffered, it returns a *UnavailableError.
func (a *Allocator) NextInt64(ctx context.Context) (int64, error) {
	a.mu.Lock()
	if a.cur.First <= a.cur.Last {
		id := a.cur.First
		a.cur.First += a.cur.step()
		if id >= a.prefetchAt {
			a.prefetch()
		}
		a.mu.Unlock()
		return id, nil
	}
	a.mu.Unlock()
	var one [1]int64
	ids, err := a.take(ctx, one[:0], 1)
	if err != nil {
		return 0, err
	}
	return ids[0], nil
}

// Next is NextInt64 with context.Background().
func (a *Allocator) Next() (int64, error) { return a.NextInt64(context.Background()) }

// NextN returns n increasing IDs, waiting for reservations as NextInt64 does. On error
// it returns the IDs taken before it, which are not handed out again.
func (a *Allocator) NextN(ctx context.Context, n int) ([]int64, error) {
	return a.take(ctx, make([]int64, 0, n), n)
}

// take appends n IDs to dst.
func (a *Allocator) take(ctx context.Context, dst []int64, n int) ([]int64, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for n > 0 {
		if avail := a.cur.Len(); avail > 0 {
			k, st := min(int64(n), avail), a.cur.step()
			for i := range k {
				dst = append(dst, a.cur.First+i*st)
			}
			a.cur.First += k * st
			n -= int(k)
			if a.cur.First > a.prefetchAt {
				a.prefetch()
			}
			continue
		}
		if err := a.refill(ctx); err != nil {
			return dst, err
		}
	}
	return dst, nil
}

// NextRange hands out up to n IDs of the current block as one Range, at a cost that
// does not depend on n: all that is left of the block when that is fewer than n, so a
// range never spans two blocks. From a block with a stride (tinyid's interleaved IDs)
// the range has that Stride: its IDs are r.First, r.First+r.Stride, ... through r.Last,
// r.Len() of them, and the IDs between belong to other databases, so a caller must step
// by the stride (Range.All does). It waits for a reservation only when nothing is
// buffered, as NextInt64 does, and fails as it does. n must be positive.
func (a *Allocator) NextRange(ctx context.Context, n int64) (Range, error) {
	if n <= 0 {
		return Range{}, fmt.Errorf("segment: NextRange of %d IDs of tag %q: want a positive count", n, a.tag)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for {
		if avail := a.cur.Len(); avail > 0 {
			k, st := min(n, avail), a.cur.step()
			r := Range{First: a.cur.First, Last: a.cur.First + (k-1)*st, Stride: a.cur.Stride}
			a.cur.First += k * st
			if a.cur.First > a.prefetchAt {
				a.prefetch()
			}
			return r, nil
		}
		if err := a.refill(ctx); err != nil {
			return Range{}, err
		}
	}
}

// refill makes IDs available when cur is empty: it moves next into cur, or starts or
// joins a reservation and waits for it. a.mu is held on entry and on return. A nil error
// does not promise that cur has IDs: the caller loops.
func (a *Allocator) refill(ctx context.Context) error {
	if a.next != nil {
		a.use(*a.next)
		a.next = nil
		return nil
	}
	ch := a.fetching
	if ch == nil {
		if a.backingOff() {
			return &UnavailableError{Tag: a.tag, Err: a.err}
		}
		ch = a.start()
	}
	a.stats.Waited++
	a.mu.Unlock()
	select {
	case <-ch:
	case <-ctx.Done():
		a.mu.Lock()
		return ctx.Err()
	}
	a.mu.Lock()
	if a.cur.Len() <= 0 && a.next == nil && a.err != nil {
		return &UnavailableError{Tag: a.tag, Err: a.err}
	}
	return nil
}

// use makes r the current block.
func (a *Allocator) use(r Range) {
	a.cur, a.curSize = r, r.Len()
	a.prefetchAt = r.First + int64(float64(r.Last-r.First+1)*a.o.Threshold)
}

// backingOff reports whether the latest reservation failed less than Retry ago.
func (a *Allocator) backingOff() bool {
	return a.err != nil && a.o.Now().Sub(a.errAt) < a.o.Retry
}

// prefetch reserves the next block in the background unless one is reserved or being
// reserved, or the store failed a moment ago.
func (a *Allocator) prefetch() {
	if a.next == nil && a.fetching == nil && !a.backingOff() {
		a.start()
	}
}

// start adapts the step and starts a reservation, returning the channel closed when it
// ends.
func (a *Allocator) start() chan struct{} {
	now := a.o.Now()
	prevStep, prevLast := a.step, a.last
	if !a.last.IsZero() {
		switch d := now.Sub(a.last); {
		case d < a.o.Target:
			a.step = min(a.step*2, a.o.MaxStep)
		case d >= 2*a.o.Target:
			a.step = max(a.step/2, a.o.MinStep)
		}
	}
	a.last = now
	ch := make(chan struct{})
	a.fetching = ch
	go a.reserve(attempt{at: now, step: a.step, prevStep: prevStep, prevLast: prevLast, setSteps: a.setSteps}, ch)
	return ch
}

// attempt is one reservation as start made it: what it asks for, and what to restore
// when it fails.
type attempt struct {
	at             time.Time
	step, prevStep int64
	prevLast       time.Time
	setSteps       uint64
}

// reserve runs one reservation, files its block and tells the Observer, then wakes the
// callers waiting for it.
func (a *Allocator) reserve(at attempt, done chan struct{}) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), a.o.Timeout)
	r, err := a.store.Reserve(ctx, a.tag, at.step)
	cancel()
	took := time.Since(start)
	if err = a.file(r, err, at, took); a.o.Observer != nil {
		n := int64(0)
		if err == nil {
			n = r.Len()
		}
		a.o.Observer.Reserved(a.tag, n, took, err)
	}
	close(done)
}

// file records the outcome of a reservation that returned r and err, and returns its
// error: err, or one for a block that would repeat IDs. On failure it restores the step and
// the time of the previous reservation, so that retries do not grow the step, unless
// SetStep was called since the reservation started.
func (a *Allocator) file(r Range, err error, at attempt, took time.Duration) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.fetching = nil
	if err == nil && a.o.Floor > 0 && r.First <= a.o.Floor {
		nc, ok := a.store.(NextCounter)
		err = &FloorError{Tag: a.tag, Floor: a.o.Floor, Block: r, CounterIsNext: ok && nc.CounterIsNext()}
	}
	if err == nil && (r.First > r.Last || r.First <= a.high) {
		// A store that moved back (a Redis restarted without its data) would repeat IDs.
		err = fmt.Errorf("segment: tag %q: the store returned block [%d, %d], not above %d already reserved", a.tag, r.First, r.Last, a.high)
	}
	a.history[a.recorded%HistoryLen] = Reservation{At: at.at, Step: at.step, Took: took, Err: err}
	a.recorded++
	if err != nil {
		a.err, a.errAt = err, a.o.Now()
		if a.setSteps == at.setSteps {
			a.step, a.last = at.prevStep, at.prevLast
		}
		a.stats.Failed++
		return err
	}
	a.err = nil
	a.high = r.Last
	a.stats.Reserved++
	if a.cur.Len() <= 0 {
		a.use(r)
	} else {
		a.next = &r
	}
	return nil
}
