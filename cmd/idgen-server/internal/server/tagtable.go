package server

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/idgen/idgen/cmd/idgen-server/internal/config"
	"github.com/idgen/idgen/cmd/idgen-server/internal/dataplane"
	"github.com/idgen/idgen/cmd/idgen-server/internal/tags"
	v1 "github.com/idgen/idgen/idgenclient/idgenv1"
	"github.com/idgen/idgen/runtime/segment"
)

// TagRefresh is how often a server looks in its stores for the step changes made through
// the console of another instance and, with a tag store (config tag_store), for the tags
// other instances created.
const TagRefresh = 30 * time.Second

// tagList returns the tags served, in order: those configured, then those found in or
// created in the tag store.
func (s *Server) tagList() []*tags.Tag { return s.table.Load().List() }

// tagNamed returns the tag named name, if served.
func (s *Server) tagNamed(name string) (*tags.Tag, bool) {
	return s.table.Load().Named(name)
}

// tagStore is what a segment store offers for tags made at run time: both the SQL store
// and redissegment.Store have it.
type tagStore interface {
	segment.Store
	Create(ctx context.Context, tag string, first, step int64) error
	Tags(ctx context.Context) ([]segment.Counter, error)
}

// newSegmentTag builds a segment tag on st.
func (s *Server) newSegmentTag(name, storeName string, st segment.Store, opts segment.Options, fromStore bool) (*tags.Tag, error) {
	sp := tags.Spec{Name: name, Kind: v1.Kind_KIND_SEGMENT, Store: storeName, FromStore: fromStore}
	_, sp.Interleaved = st.(*segment.Tinyid)
	opts.Timeout = reserveTimeout
	opts.Observer = segmentObserver{s.metrics.segment, s.log}
	var err error
	if sp.Alloc, err = segment.New(st, name, opts); err != nil {
		return nil, fmt.Errorf("server: tag %q: %w", name, err)
	}
	s.metrics.segment.Track(sp.Alloc)
	return tags.New(sp), nil
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
func (s *Server) RefreshTags(ctx context.Context) error {
	return errors.Join(s.refreshTagStore(ctx), s.applySteps(ctx))
}

// refreshTagStore serves every tag of the tag store that is not served yet. Without a
// tag store it does nothing.
func (s *Server) refreshTagStore(ctx context.Context) error {
	if s.tagSeg == nil {
		return nil
	}
	counters, err := s.tagSeg.Tags(ctx)
	if err != nil {
		return err
	}
	s.tagMu.Lock()
	defer s.tagMu.Unlock()
	cur := s.table.Load()
	var add []*tags.Tag
	for _, c := range counters {
		if _, ok := cur.Named(c.Tag); ok || config.ValidTagName(c.Tag) != nil {
			continue
		}
		t, err := s.newSegmentTag(c.Tag, s.cfg.TagStore, s.tagSeg, storeTagOptions(c.Step), true)
		if err != nil {
			s.log.Warn("tag in the tag store not served", "tag", c.Tag, "err", err)
			continue
		}
		add = append(add, t)
		s.log.Info("serving a tag found in the tag store", "tag", c.Tag, "store", s.cfg.TagStore, "max_id", c.Max)
	}
	if len(add) > 0 {
		s.table.Store(cur.With(add...))
	}
	return nil
}

// refreshLoop runs RefreshTags every TagRefresh until ctx ends.
func (s *Server) refreshLoop(ctx context.Context) {
	tick := time.NewTicker(TagRefresh)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			rctx, cancel := context.WithTimeout(ctx, dataplane.CallTimeout)
			if err := s.RefreshTags(rctx); err != nil && ctx.Err() == nil {
				s.log.Warn("looking for tags and step changes in the stores failed", "tag_store", s.cfg.TagStore, "err", err)
			}
			cancel()
		}
	}
}

// Errors of CreateSegmentTag and SetStep, for the console. Each but ErrMaybeKept is a
// refusal the admin can act on, whose message names no store address or driver; any
// other error is the store's, for the log.
var (
	// ErrNoTagStore: the configuration names no tag_store to create tags in.
	ErrNoTagStore = errors.New("server: no tag_store is configured to create tags in")
	// ErrTagExists: a tag of that name is served, or is in the tag store.
	ErrTagExists = errors.New("server: tag exists")
	// ErrNotSegment: the tag is not a segment tag.
	ErrNotSegment = errors.New("server: not a segment tag")
	// ErrUnknownTag: no tag of that name is served.
	ErrUnknownTag = errors.New("server: unknown tag")
	// ErrBadStep: a step that is not positive, or above config.MaxStep.
	ErrBadStep = errors.New("server: want a step from 1 to " + strconv.Itoa(config.MaxStep))
	// ErrInvalidInput: a bad tag name, or a first ID not in [1, config.MaxFirstID]; the
	// message names the field.
	ErrInvalidInput = errors.New("server: invalid")
	// ErrMaybeKept: the call's context ended while the store was writing the change, so
	// the store may have kept it: if it did, every instance applies it (a created tag is
	// served, a step applied) within TagRefresh, and Changes lists it.
	ErrMaybeKept = errors.New("server: the store did not confirm the change in time")
)

// CreateSegmentTag creates a segment tag in the tag store whose first ID is first, with
// the step step, and serves it at once; other instances sharing the store serve it
// within TagRefresh. The change is kept, with who made it (a token's name), in the tag
// store's change log (see Changes). It fails with ErrTagExists for a tag served or in
// the store (whose counter it leaves as it is), ErrNoTagStore without a tag store,
// ErrInvalidInput naming the field for a bad name or start, ErrBadStep for a step that
// is not positive, ErrMaybeKept when ctx ended during the store's write, or the store's
// error.
func (s *Server) CreateSegmentTag(ctx context.Context, who, name string, first, step int64) error {
	if s.tagSeg == nil {
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
	s.tagMu.Lock()
	defer s.tagMu.Unlock()
	cur := s.table.Load()
	if _, ok := cur.Named(name); ok {
		return fmt.Errorf("%w: %q is served already", ErrTagExists, name)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("server: tag %q not created: %w", name, err)
	}
	if err := s.tagSeg.Create(ctx, name, first, step); err != nil {
		if errors.Is(err, segment.ErrTagExists) {
			return fmt.Errorf("%w: %q is in store %q already", ErrTagExists, name, s.cfg.TagStore)
		}
		if ctx.Err() != nil {
			return fmt.Errorf("%w: creating tag %q in store %q: %w", ErrMaybeKept, name, s.cfg.TagStore, err)
		}
		return fmt.Errorf("server: creating tag %q in store %q: %w", name, s.cfg.TagStore, err)
	}
	opts := storeTagOptions(step)
	opts.MinStep = step
	t, err := s.newSegmentTag(name, s.cfg.TagStore, s.tagSeg, opts, true)
	if err != nil {
		return err
	}
	s.table.Store(cur.With(t))
	// The tag exists now: a change log that cannot keep the change does not undo it.
	if _, err := s.record(ctx, Change{At: time.Now(), Who: who, Tag: name, Kind: ChangeCreate, Store: s.cfg.TagStore, New: step, First: first}); err != nil {
		s.log.Warn("a created tag not kept in the change log", "tag", name, "who", who, "err", err)
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
func (s *Server) SetStep(ctx context.Context, who, name string, step int64) error {
	t, ok := s.tagNamed(name)
	switch {
	case !ok:
		return fmt.Errorf("%w %q", ErrUnknownTag, name)
	case t.Alloc() == nil:
		return fmt.Errorf("%w: %q is a %s tag", ErrNotSegment, name, tags.KindName(t.Kind()))
	case step <= 0 || step > config.MaxStep:
		return fmt.Errorf("%w: %d", ErrBadStep, step)
	}
	s.steps.mu.Lock()
	defer s.steps.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("server: step of %q not changed: %w", name, err)
	}
	id, err := s.record(ctx, Change{At: time.Now(), Who: who, Tag: name, Kind: ChangeStep, Store: t.Store(), Old: t.Alloc().Stats().Step, New: step})
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("%w: step of %q: %w", ErrMaybeKept, name, err)
		}
		return fmt.Errorf("server: step of %q not changed: %w", name, err)
	}
	if err := t.Alloc().SetStep(step); err != nil {
		return fmt.Errorf("server: step of %q: %w", name, err)
	}
	if id != "" {
		s.steps.applied[name] = id
	}
	return nil
}

// TagStoreName returns the name of the store tags are created in, "" without one.
func (s *Server) TagStoreName() string { return s.cfg.TagStore }

// Serves reports whether a tag named name is served.
func (s *Server) Serves(name string) bool {
	_, ok := s.tagNamed(name)
	return ok
}
