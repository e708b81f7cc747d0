package segment

// Resolved returns the options a uses, New's defaults filled in.
func Resolved(a *Allocator) Options { return a.o }

// TinyidBlock is tinyidBlock, for tests.
var TinyidBlock = tinyidBlock
