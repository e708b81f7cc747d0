package segment

import (
	"context"
	"fmt"
	"math"
	"sync"
)

// Memory is a Store that keeps its counters in the process's memory: for tests, examples
// and programs whose Allocators all run in one process. It shares nothing across
// processes and forgets every counter when the process ends. Safe for concurrent use.
type Memory struct {
	mu  sync.Mutex
	max map[string]int64 // the last ID reserved per tag
}

// NewMemory returns a Memory whose every tag starts at 1.
func NewMemory() *Memory { return &Memory{max: map[string]int64{}} }

// Reserve implements Store: it moves tag's counter up by step and returns the block it
// passed over. It fails if step is not positive or the
// counter would pass math.MaxInt64.
func (m *Memory) Reserve(_ context.Context, tag string, step int64) (Range, error) {
	if step < 1 {
		return Range{}, fmt.Errorf("segment: memory store: step %d for tag %q is not positive", step, tag)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.max[tag] > math.MaxInt64-step {
		return Range{}, fmt.Errorf("segment: memory store: tag %q: %d more IDs after %d overflow int64", tag, step, m.max[tag])
	}
	m.max[tag] += step
	return Range{First: m.max[tag] - step + 1, Last: m.max[tag]}, nil
}
