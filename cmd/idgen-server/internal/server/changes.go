package server

import (
	"cmp"
	"fmt"

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

// openChangeLogs makes the change log of every store that holds segment tags, or is the
// tag store.
func (s *Server) openChangeLogs() error {
	s.admin.Logs = control.Logs{}
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
			s.admin.Logs[name] = l
		}
	}
	return nil
}
