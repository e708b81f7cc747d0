package segment

import "database/sql"

// DB returns the database of s, for the tests of package segment_test that edit the
// table behind a store's back.
func DB(s *SQL) *sql.DB { return s.db }

// Resolved returns the options a uses, New's defaults filled in.
func Resolved(a *Allocator) Options { return a.o }
