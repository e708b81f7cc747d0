package control

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/idgen/idgen/cmd/idgen-server/internal/config"
	"github.com/idgen/idgen/runtime/segment"
)

// StoreTimeout bounds one store call of the control plane: a refresh of the tag store or
// the change logs, a change kept, a record of the fleet written at start. A store that
// does not answer makes it fail, not hang.
const StoreTimeout = 3 * time.Second

// TagRefresh is how often a server looks in its stores for the step changes made through
// the console of another instance and, with a tag store (config tag_store), for the tags
// other instances created.
const TagRefresh = 30 * time.Second

// TagStore is what a segment store offers for tags made at run time: both the SQL store
// and redissegment.Store have it.
type TagStore interface {
	segment.Store
	Create(ctx context.Context, tag string, first, step int64) error
	Tags(ctx context.Context) ([]segment.Counter, error)
}

// Tags is the server's table of tags, as the control plane reads and changes it.
type Tags interface {
	// Segment returns the allocator of the tag name and the name of its store. ok is
	// false when no tag of that name is served; alloc is nil when the tag is not a
	// segment tag, kind then naming its kind.
	Segment(name string) (alloc *segment.Allocator, store, kind string, ok bool)
	// AddSegment serves a new segment tag of the tag store, reserving from it with
	// opts. Admin calls it one tag at a time, for a name not served.
	AddSegment(name string, opts segment.Options) error
}

// Errors of CreateSegmentTag and SetStep, for the console. Each but ErrMaybeKept is a
// refusal the admin can act on, whose message names no store address or driver; any
// other error is the store's, for the log.
var (
	// ErrNoTagStore: the configuration names no tag_store to create tags in.
	ErrNoTagStore = errors.New("control: no tag_store is configured to create tags in")
	// ErrTagExists: a tag of that name is served, or is in the tag store.
	ErrTagExists = errors.New("control: tag exists")
	// ErrNotSegment: the tag is not a segment tag.
	ErrNotSegment = errors.New("control: not a segment tag")
	// ErrUnknownTag: no tag of that name is served.
	ErrUnknownTag = errors.New("control: unknown tag")
	// ErrBadStep: a step that is not positive, or above config.MaxStep.
	ErrBadStep = errors.New("control: want a step from 1 to " + strconv.Itoa(config.MaxStep))
	// ErrInvalidInput: a bad tag name, or a first ID not in [1, config.MaxFirstID]; the
	// message names the field.
	ErrInvalidInput = errors.New("control: invalid")
	// ErrMaybeKept: the call's context ended while the store was writing the change, so
	// the store may have kept it: if it did, every instance applies it (a created tag is
	// served, a step applied) within TagRefresh, and Logs.Recent lists it.
	ErrMaybeKept = errors.New("control: the store did not confirm the change in time")
)

// Admin is what an admin changes through the console: segment tags created in the tag
// store and the steps of segment tags, each kept in a change log and applied by every
// instance sharing the store. Set its fields before the first call; safe for concurrent
// use then.
type Admin struct {
	// Tags is the server's table of tags.
	Tags Tags
	// Logs are the change logs of the stores holding segment tags.
	Logs Logs
	// Store is the tag store (config tag_store) and StoreName its name; Store is nil
	// without one.
	Store     TagStore
	StoreName string
	// Log takes what a refresh found and what it could not do.
	Log *slog.Logger

	mu      sync.Mutex        // serialises the tags added: creations and refreshes
	stepMu  sync.Mutex        // serialises SetStep and ApplySteps
	applied map[string]string // tag -> ID of the step change applied last
}

// storeTagOptions are the options of a tag found in the tag store: its latest step
// (DefaultStep when the store keeps none), adapting down to the smaller of that and
// DefaultStep.
func storeTagOptions(step int64) segment.Options {
	if step <= 0 {
		step = segment.DefaultStep
	}
	return segment.Options{Step: step, MinStep: min(step, segment.DefaultStep), MaxStep: max(step, segment.DefaultMaxStep)}
}

// RefreshTags serves every tag of the tag store that is not served yet, and applies the
// step changes made through the console of any instance (see SetStep), as the server
// does at start and every TagRefresh. A tag whose name is configured (as any kind) or
// is not a valid tag name is left alone.
func (a *Admin) RefreshTags(ctx context.Context) error {
	return errors.Join(a.RefreshTagStore(ctx), a.ApplySteps(ctx))
}

// RefreshTagStore serves every tag of the tag store that is not served yet. Without a
// tag store it does nothing.
func (a *Admin) RefreshTagStore(ctx context.Context) error {
	if a.Store == nil {
		return nil
	}
	counters, err := a.Store.Tags(ctx)
	if err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, c := range counters {
		if _, _, _, ok := a.Tags.Segment(c.Tag); ok || config.ValidTagName(c.Tag) != nil {
			continue
		}
		if err := a.Tags.AddSegment(c.Tag, storeTagOptions(c.Step)); err != nil {
			a.Log.Warn("tag in the tag store not served", "tag", c.Tag, "err", err)
			continue
		}
		a.Log.Info("serving a tag found in the tag store", "tag", c.Tag, "store", a.StoreName, "max_id", c.Max)
	}
	return nil
}

// Loop runs RefreshTags every TagRefresh, each bounded by StoreTimeout, until ctx ends.
func (a *Admin) Loop(ctx context.Context) {
	tick := time.NewTicker(TagRefresh)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			rctx, cancel := context.WithTimeout(ctx, StoreTimeout)
			if err := a.RefreshTags(rctx); err != nil && ctx.Err() == nil {
				a.Log.Warn("looking for tags and step changes in the stores failed", "tag_store", a.StoreName, "err", err)
			}
			cancel()
		}
	}
}

// CreateSegmentTag creates a segment tag in the tag store whose first ID is first, with
// the step step, and serves it at once; other instances sharing the store serve it
// within TagRefresh. The change is kept, with who made it (a token's name), in the tag
// store's change log (see Logs.Recent). It fails with ErrTagExists for a tag served or
// in the store (whose counter it leaves as it is), ErrNoTagStore without a tag store,
// ErrInvalidInput naming the field for a bad name or start, ErrBadStep for a step that
// is not positive, ErrMaybeKept when ctx ended during the store's write, or the store's
// error.
func (a *Admin) CreateSegmentTag(ctx context.Context, who, name string, first, step int64) error {
	if a.Store == nil {
		return ErrNoTagStore
	}
	if err := config.ValidTagName(name); err != nil {
		return fmt.Errorf("%w tag name: %w", ErrInvalidInput, err)
	}
	if first <= 0 || first > config.MaxFirstID {
		return fmt.Errorf("%w start %d: want a first ID from 1 to %d", ErrInvalidInput, first, int64(config.MaxFirstID))
	}
	if step <= 0 || step > config.MaxStep {
		return fmt.Errorf("%w: %d", ErrBadStep, step)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, _, _, ok := a.Tags.Segment(name); ok {
		return fmt.Errorf("%w: %q is served already", ErrTagExists, name)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("control: tag %q not created: %w", name, err)
	}
	if err := a.Store.Create(ctx, name, first, step); err != nil {
		if errors.Is(err, segment.ErrTagExists) {
			return fmt.Errorf("%w: %q is in store %q already", ErrTagExists, name, a.StoreName)
		}
		if ctx.Err() != nil {
			return fmt.Errorf("%w: creating tag %q in store %q: %w", ErrMaybeKept, name, a.StoreName, err)
		}
		return fmt.Errorf("control: creating tag %q in store %q: %w", name, a.StoreName, err)
	}
	opts := storeTagOptions(step)
	opts.MinStep = step
	if err := a.Tags.AddSegment(name, opts); err != nil {
		return err
	}
	// The tag exists now: a change log that cannot keep the change does not undo it.
	if _, err := a.Logs.Record(ctx, Change{At: time.Now(), Who: who, Tag: name, Kind: ChangeCreate, Store: a.StoreName, New: step, First: first}); err != nil {
		a.Log.Warn("a created tag not kept in the change log", "tag", name, "who", who, "err", err)
	}
	return nil
}

// SetStep makes step the next reservation's size for the segment tag name, from which
// the step adapts (segment.Allocator.SetStep), on every instance whose tag of that name
// lives in the same store: the change is kept, with who made it (a token's name), in
// that store's change log, applied here at once and by the other instances at their
// next RefreshTags (within TagRefresh), and again by any instance that starts later.
// Each instance applies a change once. It fails with ErrUnknownTag, ErrNotSegment,
// ErrBadStep, or the store's error, the step then unchanged; or with ErrMaybeKept when
// ctx ended while the store was writing: the step is unchanged here, and if the store
// kept the change every instance, this one included, applies it at its next refresh.
func (a *Admin) SetStep(ctx context.Context, who, name string, step int64) error {
	alloc, store, kind, ok := a.Tags.Segment(name)
	switch {
	case !ok:
		return fmt.Errorf("%w %q", ErrUnknownTag, name)
	case alloc == nil:
		return fmt.Errorf("%w: %q is a %s tag", ErrNotSegment, name, kind)
	case step <= 0 || step > config.MaxStep:
		return fmt.Errorf("%w: %d", ErrBadStep, step)
	}
	a.stepMu.Lock()
	defer a.stepMu.Unlock()
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("control: step of %q not changed: %w", name, err)
	}
	id, err := a.Logs.Record(ctx, Change{At: time.Now(), Who: who, Tag: name, Kind: ChangeStep, Store: store, Old: alloc.Stats().Step, New: step})
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("%w: step of %q: %w", ErrMaybeKept, name, err)
		}
		return fmt.Errorf("control: step of %q not changed: %w", name, err)
	}
	if err := alloc.SetStep(step); err != nil {
		return fmt.Errorf("control: step of %q: %w", name, err)
	}
	if id != "" {
		a.markApplied(name, id)
	}
	return nil
}

// markApplied records that the change id of tag is applied here; under stepMu.
func (a *Admin) markApplied(tag, id string) {
	if a.applied == nil {
		a.applied = map[string]string{}
	}
	a.applied[tag] = id
}

// ApplySteps applies, with Allocator.SetStep, the latest step change of each segment tag
// served from a store with a change log, unless it applied that change already: a
// change is applied once, and the step then adapts to the traffic as before.
func (a *Admin) ApplySteps(ctx context.Context) error {
	var errs []error
	for name, l := range a.Logs {
		cs, err := l.Steps(ctx)
		if err != nil {
			errs = append(errs, fmt.Errorf("control: store %q: %w", name, err))
			continue
		}
		a.stepMu.Lock()
		for _, c := range cs {
			alloc, store, _, ok := a.Tags.Segment(c.Tag)
			if !ok || alloc == nil || store != name || a.applied[c.Tag] == c.ID || c.New <= 0 {
				continue
			}
			if err := alloc.SetStep(c.New); err != nil {
				errs = append(errs, err)
				continue
			}
			a.markApplied(c.Tag, c.ID)
			a.Log.Info("step chosen in the console applied", "tag", c.Tag, "step", c.New, "who", c.Who, "at", c.At, "store", name)
		}
		a.stepMu.Unlock()
	}
	return errors.Join(errs...)
}
