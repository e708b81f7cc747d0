package server

// SetLocalStep sets the step of the segment tag name on s alone, as its adaptation to
// the traffic would, without keeping a change: a test of SetStep sees whether a later
// RefreshTags applies the same change again.
func SetLocalStep(s *Server, name string, step int64) error {
	t, ok := s.tagNamed(name)
	if !ok || t.alloc == nil {
		return ErrUnknownTag
	}
	return t.alloc.SetStep(step)
}
