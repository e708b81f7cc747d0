package server

import (
	"testing"
	"time"

	"github.com/idgen/idgen/cmd/idgen-server/internal/auth"
	"github.com/idgen/idgen/cmd/idgen-server/internal/control"
)

// SetLocalStep sets the step of the segment tag name on s alone, as its adaptation to
// the traffic would, without keeping a change: a test of SetStep sees whether a later
// RefreshTags applies the same change again.
func SetLocalStep(s *Server, name string, step int64) error {
	t, ok := s.tagNamed(name)
	if !ok || t.Alloc() == nil {
		return control.ErrUnknownTag
	}
	return t.Alloc().SetStep(step)
}

// StoreDSN is storeDSN, for the external tests.
func StoreDSN(t testing.TB, env string) string { t.Helper(); return storeDSN(t, env) }

// FleetSignature is the auth.FleetHeader value s would send with a Status call to target at
// time at.
func FleetSignature(s *Server, target string, at time.Time) string {
	return auth.FleetSignature(s.auth.FleetKey(), target, at.UnixMilli())
}
