// Package uuidv7 makes version 7 UUIDs (RFC 9562) for the uuid7 and typeid kinds: the Unix
// millisecond, then 12 bits of sub-millisecond time, then 62 random bits, monotonic within
// the process even when two are made in the same tick or the clock steps back.
//
// It exists beside github.com/google/uuid (whose UUID type generated types may still be
// declared over) because generation is on every create's path: one lock-free
// compare-and-swap and one read of the kernel's random generator, with no allocation.
package uuidv7

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"sync/atomic"
	"time"
)

// last is the latest (millisecond << 12 | sub-millisecond) issued by this process: the
// ordering state of the package, as in every UUIDv7 generator.
var last atomic.Uint64

// New returns a new UUIDv7.
func New() ([16]byte, error) {
	var u [16]byte
	if _, err := rand.Read(u[8:]); err != nil {
		return u, fmt.Errorf("uuidv7: reading randomness: %w", err)
	}
	now := time.Now().UnixNano()
	t := uint64(now/1e6)<<12 | uint64(now%1e6*4096/1e6)
	for {
		old := last.Load()
		next := max(t, old+1)
		if last.CompareAndSwap(old, next) {
			t = next
			break
		}
	}
	// 48 bits of milliseconds, the version nibble, 12 bits of sub-millisecond time.
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], t>>12)
	copy(u[0:6], b[2:8])
	u[6] = 0x70 | byte(t>>8)&0x0f
	u[7] = byte(t)
	u[8] = 0x80 | u[8]&0x3f
	return u, nil
}
