package snowflake

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"time"
)

// yieldEvery+1 is how many IDs of a tick a caller takes under sustained load before it
// lets the other callers run.
const yieldEvery = 255

// Defaults for Options fields left zero.
const (
	DefaultMaxWait  = time.Second
	DefaultMaxDrift = time.Second
	DefaultCatchUp  = 10 * time.Millisecond
)

// Options tune a Generator. The zero value is ready to use: system clock, RollbackWait,
// ExhaustWait and the defaults above.
type Options struct {
	// Clock is where time comes from; nil means SystemClock(), anchored when New runs.
	Clock Clock
	// Rollback is the policy for a clock behind the last issued time.
	Rollback RollbackPolicy
	// Exhaust is the policy for a tick whose sequence is used up.
	Exhaust ExhaustPolicy
	// MaxWait bounds how long RollbackWait and RollbackLogical park a caller; 0 means
	// DefaultMaxWait.
	MaxWait time.Duration
	// MaxDrift bounds how far ahead of the clock RollbackLogical and ExhaustBorrow stamp
	// IDs; 0 means DefaultMaxDrift.
	MaxDrift time.Duration
	// CatchUp bounds how far behind the clock IDs may be stamped under sustained load: a
	// caller that waited for the next tick and woke late still issues in that tick rather
	// than skipping it, so the layout's full rate is kept. 0 means DefaultCatchUp (at least
	// one tick); negative turns it off, and late waiters then skip the ticks they slept
	// through.
	CatchUp time.Duration
	// After, when set, is a time at or before which this generator must issue nothing: the
	// last time a previous holder of the same worker ID issued (Generator.Last). A clock
	// behind it is treated as a rollback.
	After time.Time
	// Floor, when set, is the highest ID already issued by the system this generator
	// continues (an earlier layout, another service, a table's max(id)): New refuses to
	// start, with a *FloorError, when the clock's tick is behind the floor's time field
	// (CheckFloor), and every ID is stamped in a later tick than the floor's, so above
	// it, even if the clock later goes back.
	Floor ID
	// Observer, when set, receives the generator's events.
	Observer Observer
	// Gate, when set, bounds the IDs issued: only IDs stamped before its deadline, and
	// none while it is closed; an ID the gate does not allow is ErrGateClosed. Worker-ID
	// leases use it to stop a generator whose lease may have expired.
	Gate *Gate
}

// Generator issues IDs for one worker under one Layout. It is safe for concurrent use:
// issuing takes one compare-and-swap on the fast path and no lock.
//
// Why no ID is issued twice: state packs a (tick, sequence) pair so that its order is
// theirs, and every ID is a pair a successful compare-and-swap moved state over: above
// the value it replaced, up to the value it installed (one pair for Next, a span for
// NextN). Every such swap moves state strictly up, and a caller whose swap fails reads
// state again, so the intervals of two swaps never overlap, whatever the clock does. The
// worker field is the generator's own, and New starts state at the later of Options.After's
// tick and Options.Floor's with its sequence used up, so the first ID is in a later tick.
// Nothing else decides uniqueness: the other atomics below only choose how far up state
// moves, or report.
//
// Why a gated generator stamps nothing at or after its gate's deadline: the last tick a
// swap would take is compared with the deadline's last tick (gateLast) first. Why it
// stamps nothing later than the clock at a Close: the clock (or the cached tick) is read
// before the gate, so a caller that saw the gate open stamps from a reading made before
// the Close, plus at most the drift its policies allow; a worker ID's next holder starts
// after the release's time plus that drift.
type Generator struct {
	// state packs the last issued tick (plus one) above its sequence number. It alone
	// guarantees uniqueness (see above).
	state atomic.Uint64
	_     [56]byte
	// coarse is the tick last read by the background ticker, or -1 when none runs. Speed
	// only: the fast path stamps from it instead of reading the clock. It is never ahead
	// of the clock; stale (after a pause), it makes IDs go on in a tick behind the
	// clock's, and state still only moves up.
	coarse  atomic.Int64
	maxSeen atomic.Int64 // highest tick the clock has read: tells a rollback from a lead
	ticking atomic.Bool  // a ticker runs: speed only, so that one runs at a time
	ahead   atomic.Bool  // a non-zero drift was reported: reporting only
	behind  atomic.Bool  // a rollback was reported and has not cleared: reporting only
	// run is the latest tick entered by catching up from a used-up one: a tick of a
	// sustained load, to be used up before moving on. Rate and fairness only.
	run atomic.Int64
	// gview caches the gate's deadline as a tick (gateLast), so that the fast path reads
	// no clock and does no division.
	gview atomic.Pointer[gateView]
	// issued counts IDs, reporting only: the IDs issued are issued plus the sequence number
	// in state. A swap that stays in its tick and issues one ID moves both by one, so it
	// adds nothing; any other adds the difference after it (see Issued). issuedMax is the
	// highest count Issued returned.
	issued    atomic.Int64
	issuedMax atomic.Int64

	layout     Layout
	worker     int64
	seqBits    uint8
	seqMask    uint64
	rotMask    uint64
	timeShift  uint8
	seqShift   uint8
	workerPart int64
	maxTick    int64
	unitNs     int64
	aheadTicks int64
	catchUp    int64
	maxWait    time.Duration
	maxDrift   time.Duration
	rollback   RollbackPolicy
	clock      Clock
	sys        *systemClock // the clock when it is the system clock: read without time.Time
	anchorOff  int64        // sys.anchor - Epoch, in nanoseconds
	obs        Observer
	counted    bool // obs is an IssuedCounter: it is not told of each ID
	gate       *Gate
}

// New returns a generator for worker under layout. It validates the layout, the worker ID
// and the options, and fails if the layout's lifetime is already over.
func New(layout Layout, worker int64, opts Options) (*Generator, error) {
	clock := opts.Clock
	if clock == nil {
		clock = SystemClock()
	}
	now := clock.Now()
	if err := layout.validate(now); err != nil {
		return nil, err
	}
	if worker < 0 || worker > layout.MaxWorker() {
		return nil, fmt.Errorf("snowflake: worker %d out of range [0, %d] of layout %v: %w", worker, layout.MaxWorker(), layout, ErrOutOfRange)
	}
	switch {
	case opts.Rollback > RollbackLogical:
		return nil, fmt.Errorf("snowflake: unknown rollback policy %d", opts.Rollback)
	case opts.Exhaust > ExhaustBorrow:
		return nil, fmt.Errorf("snowflake: unknown exhaust policy %d", opts.Exhaust)
	case opts.MaxWait < 0:
		return nil, fmt.Errorf("snowflake: MaxWait %v is negative", opts.MaxWait)
	case opts.MaxDrift < 0:
		return nil, fmt.Errorf("snowflake: MaxDrift %v is negative", opts.MaxDrift)
	}
	if !now.Before(layout.End()) {
		return nil, fmt.Errorf("snowflake: layout %v ended at %s: %w", layout, layout.End().UTC().Format(time.RFC3339), ErrLifetimeOver)
	}
	if err := CheckFloor(layout, opts.Floor, now); err != nil {
		return nil, err
	}
	g := &Generator{
		layout:    layout,
		worker:    worker,
		seqBits:   layout.SeqBits,
		seqMask:   uint64(layout.MaxSeq()),
		timeShift: layout.WorkerBits + layout.SeqBits,
		maxTick:   layout.MaxTick(),
		unitNs:    int64(layout.Unit),
		maxWait:   opts.MaxWait,
		maxDrift:  opts.MaxDrift,
		rollback:  opts.Rollback,
		clock:     clock,
		obs:       opts.Observer,
		gate:      opts.Gate,
	}
	if g.maxWait == 0 {
		g.maxWait = DefaultMaxWait
	}
	if g.maxDrift == 0 {
		g.maxDrift = DefaultMaxDrift
	}
	if opts.Rollback == RollbackLogical || opts.Exhaust == ExhaustBorrow {
		g.aheadTicks = int64(g.maxDrift / layout.Unit)
	}
	switch {
	case opts.CatchUp < 0:
		g.catchUp = 0
	case opts.CatchUp == 0:
		g.catchUp = max(1, int64(DefaultCatchUp/layout.Unit))
	default:
		g.catchUp = max(1, int64(opts.CatchUp/layout.Unit))
	}
	// A new tick after a quiet one starts its sequence where the last one stopped, within
	// a window of a quarter of the sequence (at most 64), so low bits rotate.
	g.rotMask = uint64(min(64, max(1, (g.seqMask+1)/4))) - 1
	if layout.Order == TimeSeqWorker {
		g.seqShift = layout.WorkerBits
		g.workerPart = worker
	} else {
		g.workerPart = worker << layout.SeqBits
	}
	if sc, ok := clock.(*systemClock); ok {
		g.sys = sc
		g.anchorOff = int64(sc.anchor.Sub(layout.Epoch))
	}
	floor := int64(-1)
	if !opts.After.IsZero() {
		floor = min(layout.Tick(opts.After), g.maxTick)
	}
	if opts.Floor > 0 {
		floor = max(floor, int64(opts.Floor)>>g.timeShift)
	}
	g.state.Store(g.pack(floor, g.seqMask))
	g.issued.Store(-int64(g.seqMask)) // none issued
	if c, ok := opts.Observer.(IssuedCounter); ok {
		g.counted = true
		c.CountIssued(g.Issued)
	}
	g.maxSeen.Store(floor)
	g.coarse.Store(-1)
	g.run.Store(-2)
	g.gview.Store(&gateView{last: -1}) // the view of a closed gate
	return g, nil
}

// Issued returns how many IDs the generator has issued, through Next, NextContext and
// NextN. It never decreases; read while IDs are being issued, it may leave out those of the
// calls under way, and counts every ID of the calls that returned, none of a NextN that
// failed. (A NextN that reserved part of its IDs before it failed drops them; a read made
// during that call may count them, and the count then stays until as many more are issued.)
func (g *Generator) Issued() uint64 {
	// issued first, then state: a swap's addition follows the swap and never makes the
	// count go down (a swap's ID count is at least its rise in the sequence number), so
	// reading in this order can only miss IDs, never count one that is not issued.
	base := g.issued.Load()
	_, s := g.unpack(g.state.Load())
	n := base + int64(s)
	for {
		m := g.issuedMax.Load()
		if n <= m {
			return uint64(m)
		}
		if g.issuedMax.CompareAndSwap(m, n) {
			return uint64(n)
		}
	}
}

// Layout returns the generator's layout.
func (g *Generator) Layout() Layout { return g.layout }

// Worker returns the generator's worker ID.
func (g *Generator) Worker() int64 { return g.worker }

// Last returns the start of the latest tick the generator has issued IDs in (or reserved
// them, or inherited through Options.After), or the zero time if none. A later holder of
// the same worker ID passes it as Options.After.
func (g *Generator) Last() time.Time {
	t, _ := g.unpack(g.state.Load())
	if t < 0 {
		return time.Time{}
	}
	return g.layout.TimeOf(t)
}

func (g *Generator) pack(tick int64, seq uint64) uint64 { return uint64(tick+1)<<g.seqBits | seq }

func (g *Generator) unpack(v uint64) (int64, uint64) {
	return int64(v>>g.seqBits) - 1, v & g.seqMask
}

func (g *Generator) id(tick int64, seq uint64) ID {
	return ID(tick<<g.timeShift | g.workerPart | int64(seq)<<g.seqShift)
}

// following returns where the ID after (t, s) goes with the clock at now; run says it
// continues a sustained load, full that tick t is used up and the clock has not passed it
// (the ID would go in tick t+1, ahead of the clock).
func (g *Generator) following(t int64, s uint64, now int64) (nt int64, ns uint64, run, full bool) {
	switch {
	case now <= t && s < g.seqMask:
		return t, s + 1, false, false
	case now <= t:
		return t + 1, 0, false, true
	case now-t <= g.catchUp && s == g.seqMask:
		// t was used up moments ago: the load is sustained, take the very next tick.
		return t + 1, 0, true, false
	case now-t <= g.catchUp && g.run.Load() == t:
		// t is a tick of a sustained load that fell behind the clock: use it up.
		return t, s + 1, false, false
	}
	return now, (s + 1) & g.rotMask, false, false
}

// Next returns a new ID, waiting if the policies say so. It fails only with the errors
// its policies allow (*ClockBehindError), ErrLifetimeOver or ErrBeforeEpoch.
func (g *Generator) Next() (ID, error) { return g.NextContext(context.Background()) }

// NextContext is Next with waits that end when ctx is done.
func (g *Generator) NextContext(ctx context.Context) (ID, error) {
	if id, ok := g.fast(); ok {
		return id, nil
	}
	sp, err := g.reserve(ctx, 1)
	if err != nil {
		return 0, err
	}
	if g.obs != nil && !g.counted {
		g.obs.Issued(1)
	}
	return g.id(sp.t0, sp.s0), nil
}

// fast issues an ID from the ticker's cached clock without reading the clock, when the
// ticker runs and nothing needs a decision.
func (g *Generator) fast() (ID, bool) {
	c := g.coarse.Load()
	if c < 0 {
		return 0, false
	}
	last := g.maxTick
	if g.gate != nil {
		// The gate is read after the cached tick, as reserve reads it after the clock;
		// gateLast, by hand.
		v := g.gview.Load()
		if v.state != g.gate.state.Load() {
			v = g.newGateView()
		}
		last = min(last, v.last)
	}
	for {
		old := g.state.Load()
		t, s := g.unpack(old)
		nt, ns, run, full := t, s+1, false, false
		var add int64                // to issued: 0 in the common case
		if c > t || s == g.seqMask { // else the common case: the next sequence number
			nt, ns, run, full = g.following(t, s, c)
			add = int64(s) + 1 - int64(ns)
		}
		// A used-up tick may borrow the next without a clock read when even the cached
		// tick, which is never ahead of the clock, allows it. Past the layout's end or
		// the gate's deadline, reserve gives the error.
		if (full && nt > c+g.aheadTicks) || nt > last {
			return 0, false
		}
		if g.state.CompareAndSwap(old, g.pack(nt, ns)) {
			if add != 0 {
				g.issued.Add(add)
			}
			if run {
				g.run.Store(nt)
			} else if ns&yieldEvery == yieldEvery && g.run.Load() == nt {
				// At the layout's cap every caller waits for the same ticks: yield now and
				// then so the callers that woke with us get their share of this one.
				runtime.Gosched()
			}
			if g.obs != nil {
				if full {
					g.ahead.Store(true)
					g.obs.Drift(time.Duration(nt-c) * g.layout.Unit)
				} else if c > t && g.ahead.Load() && g.ahead.Swap(false) {
					g.obs.Drift(0)
				}
				if !g.counted {
					g.obs.Issued(1)
				}
			}
			return g.id(nt, ns), true
		}
	}
}

// NextN reserves n IDs in one step, for bulk inserts, and returns them in increasing order.
// When they fit in the ticks the clock allows, one compare-and-swap reserves them all;
// otherwise it waits for further ticks like Next.
func (g *Generator) NextN(ctx context.Context, n int) ([]ID, error) {
	if n < 0 {
		return nil, fmt.Errorf("snowflake: NextN(%d): negative count", n)
	}
	ids := make([]ID, 0, n)
	for len(ids) < n {
		sp, err := g.reserve(ctx, uint64(n-len(ids)))
		if err != nil {
			// The IDs reserved so far are dropped, used up: no call returns them, and
			// Issued does not count them.
			if len(ids) > 0 {
				g.issued.Add(-int64(len(ids)))
			}
			return ids[:0], err
		}
		ids = g.appendSpan(ids, sp)
	}
	if g.obs != nil && n > 0 && !g.counted {
		g.obs.Issued(n)
	}
	return ids, nil
}

// span is a run of reserved IDs from (t0, s0) to (t1, s1), both included.
type span struct {
	t0, t1 int64
	s0, s1 uint64
}

func (g *Generator) appendSpan(ids []ID, sp span) []ID {
	for t := sp.t0; t <= sp.t1; t++ {
		from, to := uint64(0), g.seqMask
		if t == sp.t0 {
			from = sp.s0
		}
		if t == sp.t1 {
			to = sp.s1
		}
		hi := t<<g.timeShift | g.workerPart
		for s := from; s <= to; s++ {
			ids = append(ids, ID(hi|int64(s)<<g.seqShift))
		}
	}
	return ids
}

// nowNs reads the clock in nanoseconds since the epoch.
func (g *Generator) nowNs() int64 {
	if g.sys != nil {
		return g.anchorOff + int64(time.Since(g.sys.anchor))
	}
	return int64(g.clock.Now().Sub(g.layout.Epoch))
}

// seen records a clock reading and returns the highest reading before it.
func (g *Generator) seen(now int64) int64 {
	prev := g.maxSeen.Load()
	for now > prev && !g.maxSeen.CompareAndSwap(prev, now) {
		prev = g.maxSeen.Load()
	}
	return prev
}

// reserve is the slow path: it reads the clock, applies the policies and reserves up to
// want IDs (at least one) with one compare-and-swap.
func (g *Generator) reserve(ctx context.Context, want uint64) (span, error) {
	for {
		ns := g.nowNs()
		// The gate is read after the clock, never before: a caller paused between the two
		// would otherwise stamp, from a clock read after a Close, an ID the next holder of
		// the worker ID may stamp too. The deadline needs no such care: the tick taken is
		// compared with it below.
		gateLast := g.maxTick
		if g.gate != nil {
			if gateLast = g.gateLast(); gateLast < 0 {
				return span{}, ErrGateClosed
			}
		}
		if ns < 0 {
			return span{}, fmt.Errorf("snowflake: clock reads %v before the epoch %s: %w",
				time.Duration(-ns), g.layout.Epoch.UTC().Format(time.RFC3339), ErrBeforeEpoch)
		}
		now := ns / g.unitNs
		if g.gate != nil && now > gateLast {
			// The clock is at or past the deadline. (A caller of the fast path, which
			// reads no clock, may still stamp the ticks before it.)
			return span{}, ErrGateClosed
		}
		prev := g.seen(now)
		old := g.state.Load()
		t, s := g.unpack(old)

		// A clock behind both its own earlier reading and the last issued tick went back.
		if ref := min(t, prev); ref > now {
			wait := time.Duration(ref*g.unitNs - ns)
			if g.obs != nil && !g.behind.Swap(true) {
				g.obs.RollbackSeen(wait)
			}
			switch g.rollback {
			case RollbackFail:
				return span{}, &ClockBehindError{Behind: wait, Policy: RollbackFail}
			case RollbackWait:
				if wait > g.maxWait {
					return span{}, &ClockBehindError{Behind: wait, Policy: RollbackWait, Limit: g.maxWait}
				}
				if err := g.sleep(ctx, wait); err != nil {
					return span{}, err
				}
				continue
			}
			// RollbackLogical: the drift bound below decides.
		} else if g.behind.Load() {
			g.behind.Store(false)
		}

		st, ss, run, _ := g.following(t, s, now)
		if st > g.maxTick {
			return span{}, fmt.Errorf("snowflake: every tick of layout %v is used (it ended at %s): %w",
				g.layout, g.layout.End().UTC().Format(time.RFC3339), ErrLifetimeOver)
		}
		limit := min(now+g.aheadTicks, g.maxTick)
		if st > limit {
			// Park until the clock reaches the tick the next ID needs, less the drift.
			wait := time.Duration((st-g.aheadTicks)*g.unitNs - ns)
			if wait > g.maxWait && st-now > 1 {
				return span{}, &ClockBehindError{Behind: time.Duration((st-1)*g.unitNs - ns), Policy: g.rollback, Limit: g.maxDrift + g.maxWait}
			}
			if err := g.sleep(ctx, wait); err != nil {
				return span{}, err
			}
			continue
		}
		if st > gateLast {
			// Ahead of the clock (borrowed, or a logical clock) and at or past the
			// deadline: refused, though the drift would allow it.
			return span{}, ErrGateClosed
		}
		limit = min(limit, gateLast)

		et, es := st, ss
		if avail := g.seqMask - ss + 1; want <= avail {
			es = ss + want - 1
		} else {
			rest := want - avail
			per := g.seqMask + 1
			if extra := (rest + per - 1) / per; extra > uint64(limit-st) {
				et, es = limit, g.seqMask
			} else {
				et, es = st+int64(extra), (rest-1)%per
			}
		}
		if !g.state.CompareAndSwap(old, g.pack(et, es)) {
			continue
		}
		// The span's IDs less the sequence number's rise: never negative, since a new
		// tick's sequence starts at most one above the last.
		n := int64(es) - int64(ss) + 1
		if et > st {
			n = int64(g.seqMask-ss+1) + (et-st-1)*int64(g.seqMask+1) + int64(es) + 1
		}
		if add := int64(s) + n - int64(es); add != 0 {
			g.issued.Add(add)
		}
		if run || et > st {
			g.run.Store(et)
		}
		if g.sys != nil && (st == t || et > now) && !g.ticking.Load() && g.ticking.CompareAndSwap(false, true) {
			// More than one ID in a tick, or IDs ahead of the clock: cache the clock so
			// callers stop reading it. Seed the cache here: under load the ticker may wait
			// for a processor. A gated generator caches too: its fast path compares the
			// cached tick with the gate's deadline, and a stale one stamps earlier.
			g.coarse.Store(now)
			go g.tick()
		}
		if g.obs != nil {
			if et > now {
				g.ahead.Store(true)
				g.obs.Drift(time.Duration((et-now)*g.unitNs - ns%g.unitNs))
			} else if g.ahead.Load() && g.ahead.Swap(false) {
				g.obs.Drift(0)
			}
		}
		return span{t0: st, s0: ss, t1: et, s1: es}, nil
	}
}

func (g *Generator) sleep(ctx context.Context, d time.Duration) error {
	if err := g.clock.Sleep(ctx, d); err != nil {
		return fmt.Errorf("snowflake: waiting %v for the clock: %w", d, err)
	}
	if g.obs != nil {
		g.obs.Waited(d)
	}
	return nil
}

// tick keeps coarse within about a tick of the clock while the generator is busy, so the
// fast path reads an atomic instead of the clock. It stops after 64 idle ticks.
func (g *Generator) tick() {
	every := max(g.layout.Unit, time.Millisecond)
	last, idle := g.state.Load(), 0
	for {
		g.coarse.Store(g.nowNs() / g.unitNs)
		time.Sleep(every)
		if cur := g.state.Load(); cur != last {
			last, idle = cur, 0
			continue
		}
		if idle++; idle >= 64 {
			g.coarse.Store(-1)
			g.ticking.Store(false)
			return
		}
	}
}

// NextInt64 is NextContext returning a plain int64, so a Generator is an idgen.Source.
func (g *Generator) NextInt64(ctx context.Context) (int64, error) {
	id, err := g.NextContext(ctx)
	return int64(id), err
}
