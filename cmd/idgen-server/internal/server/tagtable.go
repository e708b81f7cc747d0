package server

import (
	"fmt"

	"github.com/idgen/idgen/cmd/idgen-server/internal/tags"
	v1 "github.com/idgen/idgen/idgenclient/idgenv1"
	"github.com/idgen/idgen/runtime/segment"
)

// tagList returns the tags served, in order: those configured, then those found in or
// created in the tag store.
func (s *Server) tagList() []*tags.Tag { return s.table.Load().List() }

// tagNamed returns the tag named name, if served.
func (s *Server) tagNamed(name string) (*tags.Tag, bool) {
	return s.table.Load().Named(name)
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

// adminTags is the Server's table of tags as the control plane (control.Admin) reads
// and changes it.
type adminTags struct{ s *Server }

func (a adminTags) Segment(name string) (*segment.Allocator, string, string, bool) {
	t, ok := a.s.tagNamed(name)
	if !ok {
		return nil, "", "", false
	}
	return t.Alloc(), t.Store(), tags.KindName(t.Kind()), true
}

// AddSegment serves a new segment tag of the tag store: a new table with it (copy on
// write, under tagMu).
func (a adminTags) AddSegment(name string, opts segment.Options) error {
	s := a.s
	t, err := s.newSegmentTag(name, s.cfg.TagStore, s.admin.Store, opts, true)
	if err != nil {
		return err
	}
	s.tagMu.Lock()
	defer s.tagMu.Unlock()
	s.table.Store(s.table.Load().With(t))
	return nil
}

// Serves reports whether a tag named name is served.
func (s *Server) Serves(name string) bool {
	_, ok := s.tagNamed(name)
	return ok
}
