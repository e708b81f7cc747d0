package server

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/idgen/idgen/cmd/idgen-server/internal/config"
	"github.com/idgen/idgen/cmd/idgen-server/internal/control"
	"github.com/idgen/idgen/runtime/segment"
)

// newChangeLog returns the change log of st: a table beside the segment table on SQL
// (SegmentTable, or segment.DefaultTable, with "_changes" added), a stream and a hash
// beside the counters on Redis. Other stores keep no change log (nil).
func newChangeLog(st *store) (control.ChangeLog, error) {
	switch {
	case st.db != nil:
		l, err := control.SQLChangeLog(st.db, st.dialect(), cmp.Or(st.cfg.SegmentTable, segment.DefaultTable)+"_changes")
		if err != nil {
			return nil, fmt.Errorf("server: store %q: %w", st.name, err)
		}
		return l, nil
	case st.rdb != nil:
		return control.RedisChangeLog(st.rdb, st.cfg.Prefix), nil
	}
	return nil, nil
}

// stepState is what a Server has applied of the step changes in its stores.
type stepState struct {
	mu      sync.Mutex        // serialises SetStep and applySteps
	applied map[string]string // tag -> id of the step change applied last
}

// openChangeLogs makes the change log of every store that holds segment tags, or is the
// tag store.
func (s *Server) openChangeLogs() error {
	s.changeLogs = control.Logs{}
	names := map[string]bool{}
	if s.cfg.TagStore != "" {
		names[s.cfg.TagStore] = true
	}
	for _, tc := range s.cfg.Tags {
		if tc.Kind == config.KindSegment {
			names[tc.Store] = true
		}
	}
	for name := range names {
		st, ok := s.stores[name]
		if !ok {
			continue
		}
		l, err := newChangeLog(st)
		if err != nil {
			return err
		}
		if l != nil {
			s.changeLogs[name] = l
		}
	}
	return nil
}

// Changes returns the latest control.ChangeLen changes made through the console of any
// instance, newest first, read from the change logs of this server's stores. A store
// that cannot be read is named in the error, and the changes of the others are returned.
func (s *Server) Changes(ctx context.Context) ([]control.Change, error) {
	return s.changeLogs.Recent(ctx)
}

// applySteps applies, with Allocator.SetStep, the latest step change of each segment tag
// served from a store with a change log, unless it applied that change already: a
// change is applied once, and the step then adapts to the traffic as before.
func (s *Server) applySteps(ctx context.Context) error {
	var errs []error
	for name, l := range s.changeLogs {
		cs, err := l.Steps(ctx)
		if err != nil {
			errs = append(errs, fmt.Errorf("server: store %q: %w", name, err))
			continue
		}
		s.steps.mu.Lock()
		for _, c := range cs {
			t, ok := s.tagNamed(c.Tag)
			if !ok || t.alloc == nil || t.store != name || s.steps.applied[c.Tag] == c.ID || c.New <= 0 {
				continue
			}
			if err := t.alloc.SetStep(c.New); err != nil {
				errs = append(errs, err)
				continue
			}
			s.steps.applied[c.Tag] = c.ID
			s.log.Info("step chosen in the console applied", "tag", c.Tag, "step", c.New, "who", c.Who, "at", c.At, "store", name)
		}
		s.steps.mu.Unlock()
	}
	return errors.Join(errs...)
}
