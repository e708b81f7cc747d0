package registry

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Named defaults of a Registration.
const (
	// DefaultHeartbeat is how often a Registration renews its record.
	DefaultHeartbeat = 3 * time.Second
	// DefaultTTLBeats is how many heartbeats a record outlives its last renewal by
	// default: a stopped instance disappears within DefaultTTLBeats*DefaultHeartbeat, and
	// one slow heartbeat does not make a live one flicker.
	DefaultTTLBeats = 3
	// CallTimeout bounds one write of a heartbeat, and the removal at Close when the
	// caller's context has no deadline.
	CallTimeout = 2 * time.Second
)

// ErrInvalid is matched by the errors of records and options a Store or Register refuses.
var ErrInvalid = errors.New("registry: invalid")

// Instance is the record of one server.
type Instance struct {
	// ID is random per process (NewID): a restart is a new instance.
	ID string
	// URL is the base URL other instances and the console reach it at.
	URL string
	// Worker is the snowflake worker ID it holds, -1 while it holds none.
	Worker int64
	// Started is when the process started.
	Started time.Time
	// Expires is when the record ends unless renewed, by the writer's clock: set by the
	// Store on Put, reported by List.
	Expires time.Time
}

// Store keeps the records of one lease store. Implementations are safe for concurrent use.
type Store interface {
	// Put writes in (its Expires ignored) to live ttl from now, replacing the record of the
	// same ID.
	Put(ctx context.Context, in Instance, ttl time.Duration) error
	// List returns the records that have not expired, in no particular order. Records
	// it cannot decode are skipped: it returns the others with an error matching
	// ErrUndecodable.
	List(ctx context.Context) ([]Instance, error)
	// Delete removes the record of id; removing a missing record is no error.
	Delete(ctx context.Context, id string) error
}

// NewID returns a random instance ID: 16 characters of base32.
func NewID() string { return rand.Text()[:16] }

// checkInstance refuses what no Store can key or read back.
func checkInstance(in Instance) error {
	switch {
	case in.ID == "" || len(in.ID) > 64:
		return fmt.Errorf("%w instance ID %q: want 1 to 64 bytes", ErrInvalid, in.ID)
	case in.URL == "" || len(in.URL) > 1024:
		return fmt.Errorf("%w URL %q of instance %s: want 1 to 1024 bytes", ErrInvalid, in.URL, in.ID)
	}
	for i := 0; i < len(in.ID); i++ {
		if c := in.ID[i]; !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return fmt.Errorf("%w instance ID %q: want ASCII letters, digits, '-' and '_'", ErrInvalid, in.ID)
		}
	}
	return nil
}

// Options configures a Registration. The zero value renews every DefaultHeartbeat with
// a TTL of DefaultTTLBeats heartbeats.
type Options struct {
	// Heartbeat is how often the record is renewed; DefaultHeartbeat if 0.
	Heartbeat time.Duration
	// TTL is how long a record lives past its latest renewal; DefaultTTLBeats
	// heartbeats if 0. It must exceed Heartbeat.
	TTL time.Duration
	// Worker, when set, is asked for the worker ID at every heartbeat (a lease may be
	// lost and another ID claimed); the Instance's Worker otherwise.
	Worker func() int64
	// OnBeat, when set, is told the outcome of every heartbeat after the first Put (nil
	// on success), from the Registration's goroutine: for logs, and for tests to wait on.
	// After a failed first Put the heartbeats are the retries.
	OnBeat func(error)
}

// Registration is the record of this instance in a Store, renewed until Close.
type Registration struct {
	st   Store
	self Instance
	o    Options

	stop chan struct{}
	wg   sync.WaitGroup

	closeOnce sync.Once
	closeErr  error
}

// Register writes self to st at once and renews it every o.Heartbeat until Close. When
// that first write fails it returns the error together with a Registration that keeps
// writing at every heartbeat (OnBeat is told each outcome), so an instance whose store
// was briefly down is listed once it is back: Close it either way. Invalid options
// return a nil Registration.
func Register(ctx context.Context, st Store, self Instance, o Options) (*Registration, error) {
	if o.Heartbeat == 0 {
		o.Heartbeat = DefaultHeartbeat
	}
	if o.TTL == 0 {
		o.TTL = DefaultTTLBeats * o.Heartbeat
	}
	if o.Heartbeat < 0 || o.TTL <= o.Heartbeat {
		return nil, fmt.Errorf("%w options: heartbeat %v, ttl %v: want a positive heartbeat and a longer ttl", ErrInvalid, o.Heartbeat, o.TTL)
	}
	if err := checkInstance(self); err != nil {
		return nil, err
	}
	r := &Registration{st: st, self: self, o: o, stop: make(chan struct{})}
	err := r.put(ctx)
	r.wg.Go(r.beat)
	if err != nil {
		return r, fmt.Errorf("registry: registering %s (%s): %w", self.ID, self.URL, err)
	}
	return r, nil
}

// ID returns the instance ID the Registration writes.
func (r *Registration) ID() string { return r.self.ID }

func (r *Registration) put(ctx context.Context) error {
	in := r.self
	if r.o.Worker != nil {
		in.Worker = r.o.Worker()
	}
	return r.st.Put(ctx, in, r.o.TTL)
}

func (r *Registration) beat() {
	t := time.NewTicker(r.o.Heartbeat)
	defer t.Stop()
	for {
		select {
		case <-r.stop:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), min(CallTimeout, r.o.TTL))
		err := r.put(ctx)
		cancel()
		if err != nil {
			err = fmt.Errorf("registry: renewing %s: %w", r.self.ID, err)
		}
		if r.o.OnBeat != nil {
			r.o.OnBeat(err)
		}
	}
}

// Close stops the heartbeats and removes the record, so that the instance leaves the
// fleet view at once rather than when its record expires. Later calls return the first
// call's result.
func (r *Registration) Close(ctx context.Context) error {
	r.closeOnce.Do(func() {
		close(r.stop)
		r.wg.Wait()
		if _, ok := ctx.Deadline(); !ok {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, CallTimeout)
			defer cancel()
		}
		if err := r.st.Delete(ctx, r.self.ID); err != nil {
			r.closeErr = fmt.Errorf("registry: removing %s: %w", r.self.ID, err)
		}
	})
	return r.closeErr
}
