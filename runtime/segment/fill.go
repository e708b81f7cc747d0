package segment

import "context"

// Fill waits until IDs are buffered, reserving a block when none is, without handing
// any out: a service warms a tag at start with it, so that its first call does not wait
// and no ID is dropped (a fresh tag's first ID is then 1). When the store cannot reserve
// a block it returns the error NextInt64 would.
func (a *Allocator) Fill(ctx context.Context) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	for a.cur.Len() <= 0 {
		if err := a.refill(ctx); err != nil {
			return err
		}
	}
	return nil
}
