package idem

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"
)

// TestMemoryStoreSweeps: 2,000 keys with 64 KiB responses, expired; the next claim after
// MemorySweep removes them, and their memory is freed without calling Purge.
func TestMemoryStoreSweeps(t *testing.T) {
	s := NewMemory()
	now := time.Now()
	var mu sync.Mutex
	s.now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	records := func() map[string]bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		keys := make(map[string]bool, len(s.recs))
		for k := range s.recs {
			keys[k] = true
		}
		return keys
	}
	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	ctx := context.Background()
	base := heap()
	body := bytes.Repeat([]byte("r"), 64<<10)
	for i := range 2000 {
		k := fmt.Sprint("k", i)
		tok, _, _ := s.Claim(ctx, k, "fp", time.Minute)
		if err := s.Complete(ctx, k, tok, Response{Status: 200, Body: body}, time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	full := heap()
	advance(2 * time.Minute) // every response's TTL is over
	s.Claim(ctx, "one-more", "fp", time.Minute)
	after := heap()
	t.Logf("heap: %d MiB before, %d MiB with 2,000 responses, %d MiB after the sweep", base>>20, full>>20, after>>20)
	if n := len(records()); n != 1 {
		t.Errorf("%d records left after the sweep, want 1", n)
	}
	if after > base+16<<20 {
		t.Errorf("heap %d bytes after the sweep, started at %d", after, base)
	}
	// Within MemorySweep of a sweep, no sweep: claims stay O(1).
	s.Claim(ctx, "short", "fp", time.Millisecond)
	advance(MemorySweep / 2)
	s.Claim(ctx, "another", "fp", time.Minute)
	if !records()["short"] {
		t.Error("a sweep ran within MemorySweep of the last one")
	}
	advance(MemorySweep)
	s.Claim(ctx, "again", "fp", time.Minute)
	if records()["short"] {
		t.Error("an expired claim survived a sweep")
	}
}
