package bench

import (
	"fmt"
	"sync"
	"time"

	bwsnowflake "github.com/bwmarrin/snowflake"
	"github.com/google/uuid"
	"github.com/oklog/ulid/v2"
	"github.com/sony/sonyflake/v2"

	"github.com/idgen/idgen/runtime/snowflake"
)

// BorrowDrift is how far ahead of the clock the borrowing idgen generator may stamp IDs.
// An hour keeps every measurement here from reaching the bound: at 10 ns per ID a generator
// borrows about 24 s of future ticks per second it runs flat out, so a single generator
// would reach it after two and a half minutes.
const BorrowDrift = time.Hour

// IdgenCapped returns a fresh idgen generator with the Classic layout and default options:
// once a millisecond's 4096 IDs are used up, callers wait for the next millisecond, so it
// issues at most 4,096,000 IDs per second.
func IdgenCapped() (*snowflake.Generator, error) {
	return snowflake.New(snowflake.Classic(), 1, snowflake.Options{})
}

// IdgenBorrow returns a fresh idgen generator with the Classic layout that borrows future
// milliseconds instead of waiting, within BorrowDrift: uncapped for any run shorter than
// the drift bound allows.
func IdgenBorrow() (*snowflake.Generator, error) {
	return snowflake.New(snowflake.Classic(), 1, snowflake.Options{Exhaust: snowflake.ExhaustBorrow, MaxDrift: BorrowDrift})
}

// bwmarrinMu serializes Bwmarrin, which changes package variables of bwmarrin/snowflake.
var bwmarrinMu sync.Mutex

// Bwmarrin returns a fresh bwmarrin/snowflake node with stepBits bits of sequence and
// 22-stepBits bits of node number (its default is 12 and 10; its generator spins, holding
// a mutex, once a millisecond's sequence is used up). The node number is 1, or 0 when
// there are no node bits.
//
// bwmarrin/snowflake reads its bit widths from the package variables NodeBits and StepBits
// when NewNode runs, and the node keeps copies. Bwmarrin sets them for that call and
// restores the previous values after, so other nodes keep the defaults. Node and step bits
// share 22 bits: StepBits 22 alone would overflow the 41-bit time field, so NodeBits goes
// to 0 with it.
func Bwmarrin(stepBits uint8) (*bwsnowflake.Node, error) {
	if stepBits < 1 || stepBits > 22 {
		return nil, fmt.Errorf("bench: bwmarrin step bits %d out of range [1, 22]", stepBits)
	}
	bwmarrinMu.Lock()
	defer bwmarrinMu.Unlock()
	nodeBits, steps := bwsnowflake.NodeBits, bwsnowflake.StepBits
	defer func() { bwsnowflake.NodeBits, bwsnowflake.StepBits = nodeBits, steps }()
	bwsnowflake.NodeBits, bwsnowflake.StepBits = 22-stepBits, stepBits
	node := int64(1)
	if stepBits == 22 {
		node = 0
	}
	return bwsnowflake.NewNode(node)
}

// Sonyflake returns a fresh sonyflake v2 generator with its default settings (39 bits of
// 10 ms, 8 bits of sequence, 16 of machine: at most 25,600 IDs per second) and machine 1,
// so it does not look up a private IP address.
func Sonyflake() (*sonyflake.Sonyflake, error) {
	return sonyflake.New(sonyflake.Settings{MachineID: func() (int, error) { return 1, nil }})
}

// A Peer is one generator of the sustained windows.
type Peer struct {
	// Name names the peer in tables, as in "idgen-capped".
	Name string
	// New returns the next function of a fresh generator. The function is safe for
	// concurrent use and returns only an error: the IDs are dropped.
	New func() (func() error, error)
}

// Peers returns the generators the sustained windows compare, idgen first.
func Peers() []Peer {
	return []Peer{
		{"idgen-capped", idgenNext(IdgenCapped)},
		{"idgen-borrow", idgenNext(IdgenBorrow)},
		{"bwmarrin", bwmarrinNext(12)},
		{"bwmarrin-step22", bwmarrinNext(22)},
		{"sonyflake", func() (func() error, error) {
			sf, err := Sonyflake()
			if err != nil {
				return nil, err
			}
			return func() error { _, err := sf.NextID(); return err }, nil
		}},
		{"uuidv7", func() (func() error, error) {
			return func() error { _, err := uuid.NewV7(); return err }, nil
		}},
		{"typeid", func() (func() error, error) { return newTypeID, nil }},
		{"ulid", func() (func() error, error) {
			return func() error { _ = ulid.Make(); return nil }, nil
		}},
	}
}

func idgenNext(newGen func() (*snowflake.Generator, error)) func() (func() error, error) {
	return func() (func() error, error) {
		g, err := newGen()
		if err != nil {
			return nil, err
		}
		return func() error { _, err := g.Next(); return err }, nil
	}
}

func bwmarrinNext(stepBits uint8) func() (func() error, error) {
	return func() (func() error, error) {
		n, err := Bwmarrin(stepBits)
		if err != nil {
			return nil, err
		}
		return func() error { _ = n.Generate(); return nil }, nil
	}
}
