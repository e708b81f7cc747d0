package lease

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/idgen/idgen/runtime/snowflake"
	"github.com/idgen/idgen/runtime/worker"
)

// DefaultTTL is the lease length a Config left at zero gets.
const DefaultTTL = 10 * time.Second

// Config configures a Lease. Layout is required; the rest has defaults.
type Config struct {
	// Layout is the layout of the IDs issued; its worker field bounds the IDs leased.
	Layout snowflake.Layout
	// Options configure each generator the Lease makes. Gate and After must be zero: the
	// Lease sets them.
	Options snowflake.Options
	// MaxWorker is the highest worker ID to lease; 0 means Layout.MaxWorker(). A smaller
	// value lets several fleets share a layout with disjoint tables or key prefixes.
	MaxWorker int64
	// MinWorker is the lowest worker ID to lease (0 if unset). With MaxWorker it keeps
	// this fleet off the worker IDs another holds, such as the old service's during a
	// switch (Leaf's or sonyflake's machines on the same layout). A MinWorker above 0
	// needs a Backend that is a RangeBackend (the SQL, Redis and etcd backends are).
	MinWorker int64
	// TTL is how long a lease lasts unless renewed; 0 means DefaultTTL. Renewals run every
	// TTL/3; a failed one is retried every TTL/12. A claim that finds no record of its
	// worker ID (Claim.Fresh: the first claim of each ID on a new store, or any claim after
	// the store lost its data) issues nothing until TTL plus the drift (see MaxDrift in
	// Options) plus Skew after the claim, when any holder the store forgot has stopped:
	// the Next methods and WorkerID wait until then (bounded by their context).
	TTL time.Duration
	// Margin is how long before the lease could expire, judged from the start of its last
	// successful renewal, the generator's deadline falls: it stamps no ID at or after it;
	// 0 means TTL/10. It covers clock rate differences between this host and the store.
	// At most TTL/2.
	Margin time.Duration
	// Skew bounds how far this fleet's clocks may run ahead of the store's clock. A new
	// holder of an ID that expired or was released starts Skew later, so that IDs stamped
	// by a fast-clocked previous holder up to its last moment cannot be issued again; a
	// fresh claim (see TTL) waits Skew longer for the same reason.
	Skew time.Duration
	// OnEvent, when set, is called on every acquisition, renewal, loss and release, from
	// the Lease's own goroutine, Close's, or (for the first acquisition) Acquire's. It
	// must not block.
	OnEvent func(Event)
}

// EventKind says what happened to a Lease.
type EventKind uint8

const (
	// Acquired: a worker ID was claimed and a generator opened for it.
	Acquired EventKind = iota + 1
	// AcquireFailed: claiming a worker ID failed; the Lease retries.
	AcquireFailed
	// Renewed: the lease was extended.
	Renewed
	// RenewFailed: a renewal failed without the store saying the lease is lost (a timeout,
	// a broken connection); the Lease retries, and stops issuing at the deadline.
	RenewFailed
	// Lost: the store says the token no longer holds the worker ID. The generator is
	// closed, and the Lease claims a worker ID again.
	Lost
	// Released: Close released the lease.
	Released
)

// String returns the kind's name.
func (k EventKind) String() string {
	switch k {
	case Acquired:
		return "acquired"
	case AcquireFailed:
		return "acquire-failed"
	case Renewed:
		return "renewed"
	case RenewFailed:
		return "renew-failed"
	case Lost:
		return "lost"
	case Released:
		return "released"
	}
	return fmt.Sprintf("EventKind(%d)", uint8(k))
}

// Event is what Config.OnEvent receives.
type Event struct {
	Kind EventKind
	// Worker is the worker ID concerned, or -1 (AcquireFailed).
	Worker int64
	// Deadline is the time, on the generator's clock, at or after which the generator
	// stamps no ID unless the lease is renewed (Acquired, Renewed).
	Deadline time.Time
	// After is the time the new generator issues strictly after (Acquired): the latest of
	// the tick the previous holders recorded and the end of the previous lease plus the
	// generator's drift and Config.Skew; on a Fresh claim, the end of the new lease (the
	// claim plus the TTL) plus the drift and Skew.
	After time.Time
	// Fresh says the store had no record of the worker ID claimed (Acquired): a new store,
	// or one that lost its data. Nothing is issued until After, so the first IDs wait
	// about a TTL.
	Fresh bool
	// Took is how long the call to the backend took.
	Took time.Duration
	// Err is the error of a failure or loss.
	Err error
}

// Lease holds a worker ID from a Backend and issues IDs under it with a snowflake
// Generator that can only stamp IDs while the lease is certainly held. It claims the
// lowest free ID, renews it in the background every TTL/3, and gates its generator
// (snowflake.Gate) so that it stamps no ID at or after the start of the last successful
// renewal plus TTL minus Margin, before the store can let the lease expire: a renewal
// that fails, or a process that is paused, stops by itself. A lease found lost is
// claimed again, possibly as another worker ID with a new generator; IDs resume only
// then. Between, Next returns a *NotHeldError.
//
// A new generator never issues at or before the latest tick the ID's previous holders
// recorded, nor before the previous lease's end plus the largest drift its policies allow
// (so a holder that died without recording its last ticks is covered too); a clock behind
// that is a rollback, handled by Options.Rollback. A claim that finds no record of the ID
// (Claim.Fresh) knows neither: its generator issues nothing until the new lease's end
// plus that drift and Config.Skew, by when any holder the store forgot has stopped and
// every tick it stamped is past; the Next methods and WorkerID wait for that moment.
//
// A Lease is safe for concurrent use. It implements worker.Source.
type Lease struct {
	b        Backend
	layout   snowflake.Layout
	opts     snowflake.Options
	min, max int64
	ttl      time.Duration
	margin   time.Duration
	every    time.Duration
	skew     time.Duration
	drift    time.Duration
	onEvent  func(Event)
	cur      atomic.Pointer[term]
	cancel   context.CancelFunc
	done     chan struct{}
	closeMu  sync.Mutex
	closed   bool
	closeErr error
	stateMu  sync.Mutex
	state    State
}

// State is what a Lease knows of its worker ID now, from its latest events: for
// readiness checks and status pages, which read it instead of keeping their own copy of
// the events.
type State struct {
	// Worker is the worker ID held, or -1 when none is (after a loss, before the claim
	// that follows it, and after Close).
	Worker int64
	// Deadline is the time, on the generator's clock, at or after which the generator
	// stamps no ID unless the lease is renewed; zero when no worker ID is held.
	Deadline time.Time
	// After is the latest claim's Event.After: the generator issues strictly after it,
	// so a fresh claim issues nothing until then.
	After time.Time
	// Last is the kind of the latest event (Acquired once Acquire has returned).
	Last EventKind
	// Err is the latest event's error, nil if it had none.
	Err error
}

// State returns what the Lease knows of its worker ID now. It is safe to call at any
// time, as often as wanted: it reads one record under a lock, never the store.
func (l *Lease) State() State {
	l.stateMu.Lock()
	defer l.stateMu.Unlock()
	st := l.state
	if st.Deadline.IsZero() {
		st.Worker = -1
	}
	return st
}

var _ worker.Source = (*Lease)(nil)

// term is one holding of one worker ID: its token, generator and gate.
type term struct {
	worker int64
	token  string
	gen    *snowflake.Generator
	gate   *snowflake.Gate
	// clock is the generator's clock (Config.Options.Clock, or a SystemClock of the
	// term's own). The gate's deadlines are times on it, since the gate compares them
	// with the generator's stamps.
	clock snowflake.Clock
	start time.Time             // start of the last successful claim or renewal (time.Now)
	ended atomic.Pointer[error] // why the term ended: a *LostError or ErrClosed
	done  chan struct{}         // closed when the term ends

	// A fresh claim's term issues nothing before from, the start of the first tick its
	// generator may issue in, read on clock. The generator's After already keeps its IDs
	// after that tick; waiting here keeps the generator's rollback policy (MaxWait,
	// RollbackFail) out of a wait that is the lease's, and keeps a RollbackLogical
	// generator from issuing ahead of its clock while a forgotten holder may still run.
	// ready is set once from has passed, or at once when there is nothing to wait for,
	// so the hot path reads one atomic.
	ready atomic.Bool
	from  time.Time
}

func (t *term) cause() error {
	if p := t.ended.Load(); p != nil {
		return *p
	}
	return nil
}

func (t *term) end(err error) {
	t.gate.Close()
	if t.ended.CompareAndSwap(nil, &err) {
		close(t.done)
	}
}

// await returns nil once t may issue, at once unless t is a fresh claim's term still
// waiting for any forgotten holder to stop. It returns a *NotHeldError if the term ends
// first, and ctx's error, wrapped, if ctx ends first.
func (t *term) await(ctx context.Context) error {
	if t.ready.Load() {
		return nil
	}
	return t.wait(ctx)
}

// wait is await's slow path, apart so that await inlines into the Next methods.
func (t *term) wait(ctx context.Context) error {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-t.done:
			cancel()
		case <-wctx.Done():
		}
	}()
	for {
		if t.cause() != nil {
			return notHeld(t)
		}
		d := t.from.Sub(t.clock.Now())
		if d <= 0 {
			t.ready.Store(true)
			return nil
		}
		if err := t.clock.Sleep(wctx, d); err != nil {
			if t.cause() != nil {
				return notHeld(t)
			}
			return fmt.Errorf("lease: waiting %v for any holder of worker ID %d the store forgot to stop: %w", d, t.worker, err)
		}
	}
}

// Acquire claims a worker ID from b and returns a Lease issuing under it, renewing in the
// background until Close. It fails if the first claim fails, with an *AllTakenError when
// every ID is held; ctx bounds that claim only.
func Acquire(ctx context.Context, b Backend, cfg Config) (*Lease, error) {
	l, err := newLease(b, cfg)
	if err != nil {
		return nil, err
	}
	t, acq, err := l.acquire(ctx, nil)
	if err != nil {
		return nil, err
	}
	l.cur.Store(t)
	bg, cancel := context.WithCancel(context.Background())
	l.cancel, l.done = cancel, make(chan struct{})
	// Emitted once the Lease is whole, so that a handler may use it (even Close it).
	l.emit(acq)
	go l.run(bg)
	return l, nil
}

func newLease(b Backend, cfg Config) (*Lease, error) {
	if b == nil {
		return nil, errors.New("lease: nil Backend")
	}
	if err := cfg.Layout.Validate(); err != nil {
		return nil, err
	}
	// The lease's safety is its own gate: every generator it makes gets a fresh Gate, open
	// until the deadline of the last successful renewal, so that it stamps nothing once the
	// lease could have lapsed, and an After past every ID an earlier holder of the worker ID
	// could have issued (acquire sets both). A caller's Gate would not follow the renewals,
	// and a caller's After could be earlier than the store's record: both are refused
	// rather than silently overwritten.
	if cfg.Options.Gate != nil || !cfg.Options.After.IsZero() {
		return nil, errors.New("lease: Options.Gate and Options.After are set by the lease and must be zero")
	}
	l := &Lease{b: b, layout: cfg.Layout, opts: cfg.Options, min: cfg.MinWorker, max: cfg.MaxWorker, ttl: cfg.TTL,
		margin: cfg.Margin, skew: cfg.Skew, onEvent: cfg.OnEvent}
	lmax := cfg.Layout.MaxWorker()
	switch {
	case l.max == 0:
		l.max = lmax
	case l.max < 0 || l.max > lmax:
		return nil, fmt.Errorf("lease: MaxWorker %d out of range [0, %d] of layout %v", l.max, lmax, cfg.Layout)
	}
	switch {
	case l.min < 0 || l.min > l.max:
		return nil, fmt.Errorf("lease: MinWorker %d out of range [0, MaxWorker %d]", l.min, l.max)
	case l.min > 0:
		if _, ok := b.(RangeBackend); !ok {
			return nil, fmt.Errorf("lease: MinWorker %d needs a backend that claims within a range (a RangeBackend, as the SQL, Redis and etcd ones are); %T is not", l.min, b)
		}
	}
	if l.ttl == 0 {
		l.ttl = DefaultTTL
	}
	if l.margin == 0 {
		l.margin = l.ttl / 10
	}
	switch {
	case l.ttl < 10*time.Millisecond:
		return nil, fmt.Errorf("lease: TTL %v is under 10ms", l.ttl)
	case l.margin < 0 || l.margin > l.ttl/2:
		return nil, fmt.Errorf("lease: Margin %v out of range [0, TTL/2 = %v]", l.margin, l.ttl/2)
	case l.skew < 0:
		return nil, fmt.Errorf("lease: Skew %v is negative", l.skew)
	}
	l.every = l.ttl / 3
	// Only these policies stamp IDs ahead of the clock, by up to MaxDrift.
	if cfg.Options.Rollback == snowflake.RollbackLogical || cfg.Options.Exhaust == snowflake.ExhaustBorrow {
		l.drift = cfg.Options.MaxDrift
		if l.drift == 0 {
			l.drift = snowflake.DefaultMaxDrift
		}
	}
	// The generator stamps nothing at or after its deadline, which just before a renewal
	// is TTL - TTL/3 - Margin ahead of the clock: stamps further ahead (a logical clock or
	// borrowed ticks, up to the drift; a new holder's first ones, up to the drift plus
	// Skew after its claim) would be refused as if the lease were in doubt.
	if lead := l.ttl - l.every - l.margin; l.drift+l.skew >= lead {
		return nil, fmt.Errorf("lease: the generator's drift %v plus Skew %v is not under TTL - TTL/3 - Margin = %v, how far ahead of the clock its deadline can be: raise the TTL or lower MaxDrift", l.drift, l.skew, lead)
	}
	return l, nil
}

func (l *Lease) emit(e Event) {
	l.stateMu.Lock()
	l.state.Last, l.state.Err = e.Kind, e.Err
	switch e.Kind {
	case Acquired:
		l.state.Worker, l.state.Deadline, l.state.After = e.Worker, e.Deadline, e.After
	case Renewed:
		l.state.Deadline = e.Deadline
	case Lost, Released:
		l.state.Deadline = time.Time{}
	}
	l.stateMu.Unlock()
	if l.onEvent != nil {
		l.onEvent(e)
	}
}

// acquire claims a worker ID and opens a generator for it, returning the Acquired event
// for the caller to emit once the term is current, so that a Next called on the event
// issues under the new worker ID. prev is the term it replaces, if any.
func (l *Lease) acquire(ctx context.Context, prev *term) (*term, Event, error) {
	token := NewToken()
	// Each term gets a system clock of its own, anchored now, so a new generator starts
	// from the wall clock of its claim (not that of the first claim, which a suspended
	// machine would have left behind).
	clock := l.opts.Clock
	if clock == nil {
		clock = snowflake.SystemClock()
	}
	// Both read before the claim is sent: the store starts the lease no earlier.
	start, gstart := time.Now(), clock.Now()
	var c Claim
	var err error
	if rb, ok := l.b.(RangeBackend); ok && l.min > 0 {
		c, err = rb.AcquireRange(ctx, l.min, l.max, token, l.ttl)
	} else {
		c, err = l.b.Acquire(ctx, l.max, token, l.ttl)
	}
	took := time.Since(start)
	if err != nil {
		return nil, Event{}, err
	}
	if c.Worker < l.min || c.Worker > l.max {
		l.b.Release(ctx, c.Worker, token, time.Time{})
		return nil, Event{}, fmt.Errorf("lease: backend claimed worker ID %d, outside [%d, %d]", c.Worker, l.min, l.max)
	}
	after := c.Last
	// A claim with no end of a previous lease has no record to go by, whatever the backend
	// says: a backend that does not set Fresh gets the wait too.
	fresh := c.Fresh || c.Prev.IsZero()
	if fresh {
		// Any holder the store forgot renewed before this claim, so it stamps nothing at
		// or after a deadline before the new lease's end plus its clock's lead on the
		// store's. The drift is added too, as for a released lease: a holder running an
		// earlier version, whose gate bounded clock readings rather than stamps, could
		// stamp that much later.
		end := c.Expires
		if end.IsZero() {
			end = time.Now().Add(l.ttl)
		}
		if p := end.Add(l.drift + l.skew); p.After(after) {
			after = p
		}
	} else if p := c.Prev.Add(l.drift + l.skew); p.After(after) {
		after = p
	}
	if prev != nil && prev.worker == c.Worker {
		if p := prev.gen.Last(); p.After(after) {
			after = p
		}
	}
	opts := l.opts
	opts.After, opts.Clock = after, clock
	opts.Gate = new(snowflake.Gate)
	gen, err := snowflake.New(l.layout, c.Worker, opts)
	if err != nil {
		l.b.Release(ctx, c.Worker, token, after)
		return nil, Event{}, err
	}
	deadline := gstart.Add(l.ttl - l.margin)
	opts.Gate.OpenUntil(deadline)
	t := &term{worker: c.Worker, token: token, gen: gen, gate: opts.Gate, clock: clock, start: start, done: make(chan struct{})}
	if fresh {
		t.from = l.layout.TimeOf(l.layout.Tick(after) + 1)
	} else {
		t.ready.Store(true)
	}
	return t, Event{Kind: Acquired, Worker: c.Worker, Deadline: deadline, After: after, Fresh: fresh, Took: took}, nil
}

// run renews the current term every TTL/3 and claims a new one when it is lost, until ctx
// is done.
func (l *Lease) run(ctx context.Context) {
	defer close(l.done)
	t := l.cur.Load()
	next := t.start.Add(l.every)
	timer := time.NewTimer(time.Until(next))
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		start, gstart := time.Now(), t.clock.Now()
		rctx, cancel := context.WithTimeout(ctx, l.every)
		err := l.b.Renew(rctx, t.worker, t.token, l.ttl, t.gen.Last())
		cancel()
		took := time.Since(start)
		switch {
		case err == nil:
			// The store extended the lease at or after start, so it runs at least until
			// start+TTL; the generator's clock read gstart then. A renewal that returns
			// after its deadline leaves the generator stamping nothing new: its clock is
			// past the deadline.
			deadline := gstart.Add(l.ttl - l.margin)
			t.gate.OpenUntil(deadline)
			t.start = start
			l.emit(Event{Kind: Renewed, Worker: t.worker, Deadline: deadline, Took: took})
			next = start.Add(l.every)
		case errors.Is(err, ErrLost):
			t.end(err)
			l.emit(Event{Kind: Lost, Worker: t.worker, Took: took, Err: err})
			if t = l.reacquire(ctx, t); t == nil {
				return
			}
			next = t.start.Add(l.every)
		case ctx.Err() != nil:
			return
		default:
			l.emit(Event{Kind: RenewFailed, Worker: t.worker, Took: took, Err: err})
			next = time.Now().Add(l.ttl / 12)
		}
		timer.Reset(time.Until(next))
	}
}

// reacquire claims a worker ID until it succeeds or ctx is done (nil then).
func (l *Lease) reacquire(ctx context.Context, prev *term) *term {
	wait := l.ttl / 12
	for {
		actx, cancel := context.WithTimeout(ctx, l.ttl)
		t, acq, err := l.acquire(actx, prev)
		cancel()
		if err == nil {
			l.cur.Store(t)
			l.emit(acq)
			return t
		}
		if ctx.Err() != nil {
			return nil
		}
		l.emit(Event{Kind: AcquireFailed, Worker: -1, Err: err})
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
		wait = min(2*wait, l.every)
	}
}

// notHeld is the error for Next on t.
func notHeld(t *term) error { return &NotHeldError{Worker: t.worker, Err: t.cause()} }

// Next returns a new ID, or a *NotHeldError while no worker ID is certainly held. After a
// fresh claim (Event.Fresh) it first waits until any holder the store forgot has stopped.
func (l *Lease) Next() (snowflake.ID, error) { return l.NextContext(context.Background()) }

// NextContext is Next with waits (for the clock, under the generator's policies, and after
// a fresh claim) that end when ctx is done.
func (l *Lease) NextContext(ctx context.Context) (snowflake.ID, error) {
	t := l.cur.Load()
	if err := t.await(ctx); err != nil {
		return 0, err
	}
	// The generator reads its clock (or its cached tick) first and its gate after, and
	// stamps only ticks before the gate's deadline: an ID returned here may reach the
	// caller after the deadline (a process paused in between), but is stamped before it,
	// where the worker ID's next holder never stamps. So no check after it.
	id, err := t.gen.NextContext(ctx)
	if err != nil {
		if errors.Is(err, snowflake.ErrGateClosed) {
			return 0, notHeld(t)
		}
		return 0, err
	}
	return id, nil
}

// NextInt64 is NextContext returning a plain int64.
func (l *Lease) NextInt64(ctx context.Context) (int64, error) {
	id, err := l.NextContext(ctx)
	return int64(id), err
}

// NextN reserves n IDs in one step, as snowflake.Generator.NextN does, or fails with a
// *NotHeldError while no worker ID is certainly held. It waits after a fresh claim as
// NextContext does.
func (l *Lease) NextN(ctx context.Context, n int) ([]snowflake.ID, error) {
	t := l.cur.Load()
	if err := t.await(ctx); err != nil {
		return nil, err
	}
	// As in NextContext: every tick reserved is before the gate's deadline.
	ids, err := t.gen.NextN(ctx, n)
	if err != nil {
		if errors.Is(err, snowflake.ErrGateClosed) {
			return nil, notHeld(t)
		}
		return nil, err
	}
	return ids, nil
}

// WorkerID implements worker.Source: the worker ID held now, or a *NotHeldError. After a
// fresh claim it waits, as NextContext does, until any holder the store forgot has
// stopped. The ID may change after a loss, and a generator built on it elsewhere is not
// stopped when the lease is lost: issue through the Lease's Next methods to keep that
// guarantee.
func (l *Lease) WorkerID(ctx context.Context) (int64, error) {
	t := l.cur.Load()
	if err := t.await(ctx); err != nil {
		return 0, err
	}
	// Held now: an ID stamped now would be allowed.
	if !t.gate.Allows(t.clock.Now()) {
		return 0, notHeld(t)
	}
	return t.worker, nil
}

// Layout returns the layout of the IDs the Lease issues.
func (l *Lease) Layout() snowflake.Layout { return l.layout }

// Close stops renewing, stops the generator and releases the lease, recording the latest
// tick issued so the next holder of the ID starts after it. ctx bounds the release. After
// Close, Next returns a *NotHeldError wrapping ErrClosed. Closing again returns the first
// result.
func (l *Lease) Close(ctx context.Context) error {
	l.closeMu.Lock()
	defer l.closeMu.Unlock()
	if l.closed {
		return l.closeErr
	}
	l.closed = true
	l.cancel()
	<-l.done
	l.stateMu.Lock()
	l.state.Deadline = time.Time{}
	l.stateMu.Unlock()
	t := l.cur.Load()
	lost := t.cause() != nil
	t.end(ErrClosed)
	if lost {
		return nil
	}
	start := time.Now()
	// What is recorded must bound every stamp of this term. The gate is closed, but a
	// caller still inside the generator read its clock before it saw the gate open, and
	// may take an ID after gen.Last is read, stamped no later than the clock now plus the
	// drift. So the later of the two is recorded: the next holder starts after it. (The
	// release's own time does not cover it: stores round it down to the millisecond,
	// and a layout's ticks need not start on one.)
	last := t.gen.Last()
	if bound := t.clock.Now().Add(l.drift); bound.After(last) {
		last = bound
	}
	err := l.b.Release(ctx, t.worker, t.token, last)
	l.emit(Event{Kind: Released, Worker: t.worker, Took: time.Since(start), Err: err})
	l.closeErr = err
	return err
}
