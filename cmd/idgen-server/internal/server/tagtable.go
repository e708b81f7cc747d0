package server

import (
	"fmt"
	"maps"

	v1 "github.com/idgen/idgen/idgenclient/idgenv1"
	"github.com/idgen/idgen/runtime/segment"
)

// tagTable is the tags a Server serves. It is never changed: a tag created or found in
// the tag store makes a new table (copy on write, under Server.tagMu), so a call reads
// the tags with one atomic load.
type tagTable struct {
	byName map[string]*tag
	order  []*tag
}

// with returns a table of t's tags and then add.
func (t *tagTable) with(add ...*tag) *tagTable {
	n := &tagTable{byName: make(map[string]*tag, len(t.byName)+len(add)), order: append(t.order[:len(t.order):len(t.order)], add...)}
	maps.Copy(n.byName, t.byName)
	for _, a := range add {
		n.byName[a.name] = a
	}
	return n
}

// tagList returns the tags served, in order: those configured, then those found in or
// created in the tag store.
func (s *Server) tagList() []*tag { return s.table.Load().order }

// tagNamed returns the tag named name, if served.
func (s *Server) tagNamed(name string) (*tag, bool) {
	t, ok := s.table.Load().byName[name]
	return t, ok
}

// newSegmentTag builds a segment tag on st.
func (s *Server) newSegmentTag(name, storeName string, st segment.Store, opts segment.Options, fromStore bool) (*tag, error) {
	t := &tag{name: name, kind: v1.Kind_KIND_SEGMENT, store: storeName, fromStore: fromStore}
	_, t.interleaved = st.(*segment.Tinyid)
	opts.Timeout = ReserveTimeout
	opts.Observer = segmentObserver{s.metrics.segment, s.log}
	var err error
	if t.alloc, err = segment.New(st, name, opts); err != nil {
		return nil, fmt.Errorf("server: tag %q: %w", name, err)
	}
	s.metrics.segment.Track(t.alloc)
	return t, nil
}

// adminTags is the Server's table of tags as the control plane (control.Admin) reads
// and changes it.
type adminTags struct{ s *Server }

func (a adminTags) Segment(name string) (*segment.Allocator, string, string, bool) {
	t, ok := a.s.tagNamed(name)
	if !ok {
		return nil, "", "", false
	}
	return t.alloc, t.store, KindName(t.kind), true
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
	s.table.Store(s.table.Load().with(t))
	return nil
}

// Serves reports whether a tag named name is served.
func (s *Server) Serves(name string) bool {
	_, ok := s.tagNamed(name)
	return ok
}
