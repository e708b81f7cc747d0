package uuidv7

import (
	"bytes"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
)

func TestNew(t *testing.T) {
	before := time.Now().UnixMilli()
	a, err := New()
	if err != nil {
		t.Fatal(err)
	}
	g := uuid.UUID(a)
	if g.Version() != 7 || g.Variant() != uuid.RFC4122 {
		t.Fatalf("%s: version %d variant %v", g, g.Version(), g.Variant())
	}
	sec, nsec := g.Time().UnixTime()
	if ms := sec*1000 + nsec/1e6; ms < before || ms > time.Now().UnixMilli() {
		t.Fatalf("time %d not in [%d, now]", ms, before)
	}
	// Monotonic within the process, from many goroutines.
	var mu sync.Mutex
	var all [][16]byte
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			prev := [16]byte{}
			local := make([][16]byte, 0, 20000)
			for range 20000 {
				u, err := New()
				if err != nil {
					t.Error(err)
					return
				}
				if bytes.Compare(u[:], prev[:]) <= 0 {
					t.Errorf("%x after %x", u, prev)
					return
				}
				prev = u
				local = append(local, u)
			}
			mu.Lock()
			all = append(all, local...)
			mu.Unlock()
		})
	}
	wg.Wait()
	seen := make(map[[16]byte]bool, len(all))
	for _, u := range all {
		if seen[u] {
			t.Fatalf("duplicate %x", u)
		}
		seen[u] = true
	}
}

func BenchmarkNew(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := New(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGoogleNewV7(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := uuid.NewV7(); err != nil {
			b.Fatal(err)
		}
	}
}
