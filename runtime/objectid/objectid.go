// Package objectid makes and reads MongoDB ObjectIds, for services that share IDs with
// MongoDB: 12 bytes, a 4-byte big-endian count of seconds, 5 random bytes fixed per
// process, and a 3-byte counter that starts at a random value; 24 hex characters as text.
//
// Within a process the IDs are unique as long as fewer than 2^24 are made in one second;
// across processes they rely on the 5 random bytes, as MongoDB's drivers do.
package objectid

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/idgen/idgen/runtime/codec"
)

// Generator makes ObjectIds for one process.
type Generator struct {
	process [5]byte
	counter atomic.Uint32
	now     func() time.Time
}

// NewGenerator returns a generator with fresh random process bytes and counter.
func NewGenerator() (*Generator, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("objectid: reading randomness: %w", err)
	}
	g := &Generator{now: time.Now}
	copy(g.process[:], b[:5])
	g.counter.Store(uint32(b[5])<<16 | uint32(b[6])<<8 | uint32(b[7]))
	return g, nil
}

// New returns a new ObjectId.
func (g *Generator) New() [12]byte {
	var id [12]byte
	binary.BigEndian.PutUint32(id[0:4], uint32(g.now().Unix()))
	copy(id[4:9], g.process[:])
	c := g.counter.Add(1)
	id[9], id[10], id[11] = byte(c>>16), byte(c>>8), byte(c)
	return id
}

// std is the process's generator: an ObjectId's middle bytes identify the process.
var std = func() *Generator {
	g, err := NewGenerator()
	if err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	return g
}()

// New returns a new ObjectId from the process's generator.
func New() [12]byte { return std.New() }

// Time returns the second an ObjectId was made in.
func Time(id [12]byte) time.Time {
	return time.Unix(int64(binary.BigEndian.Uint32(id[0:4])), 0).UTC()
}

// Append appends the 24 lowercase hex characters of id.
func Append(dst []byte, id [12]byte) []byte { return hex.AppendEncode(dst, id[:]) }

// Parse reads 24 hex characters (either case) for the type named typ; errors are
// *codec.ParseError.
func Parse(typ, s string) ([12]byte, error) {
	var id [12]byte
	if len(s) != 24 {
		return id, codec.Errorf(typ, s, "want 24 hex characters, got %d bytes", len(s))
	}
	if _, err := hex.Decode(id[:], []byte(s)); err != nil {
		return id, codec.Errorf(typ, s, "%w", err)
	}
	return id, nil
}

// Scan converts a value read from SQL for the type named typ: 12 raw bytes (binary
// columns) or 24 hex characters. NULL gives null true.
func Scan(typ string, src any) (id [12]byte, null bool, err error) {
	switch x := src.(type) {
	case nil:
		return id, true, nil
	case []byte:
		if len(x) == 12 {
			return [12]byte(x), false, nil
		}
		id, err = Parse(typ, string(x))
		return id, false, err
	case string:
		id, err = Parse(typ, x)
		return id, false, err
	}
	return id, false, &codec.ParseError{Type: typ, Reason: fmt.Sprintf("cannot scan a %T into it", src)}
}
