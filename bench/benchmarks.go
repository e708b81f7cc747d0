package bench

import (
	"context"
	"errors"
	"testing"

	"github.com/google/uuid"
	"github.com/oklog/ulid/v2"
	"go.jetify.com/typeid"

	"github.com/idgen/idgen/runtime/snowflake"
)

// NextNBlock is how many IDs the NextN benchmarks reserve per call.
const NextNBlock = 1000

// A Benchmark measures one way of getting IDs. The bodies live here rather than in a test
// file so that cmd/sustain can run the same code with testing.Benchmark. Each body calls
// its generator directly, not through a function value, and builds a fresh generator every
// time it runs.
type Benchmark struct {
	// Name names it in benchmark output, as in "idgen-borrow".
	Name string
	// IDsPerOp is how many IDs one operation issues: 1, or NextNBlock for NextN.
	IDsPerOp int
	// Serial calls the generator from the benchmark's goroutine.
	Serial func(b *testing.B)
	// Parallel calls it from b.RunParallel, with par times GOMAXPROCS goroutines (par 0
	// keeps RunParallel's default of one per GOMAXPROCS). Nil when only Serial applies.
	Parallel func(b *testing.B, par int)
}

// Benchmarks returns every benchmark, idgen first.
func Benchmarks() []Benchmark {
	return []Benchmark{
		{"idgen-capped", 1, idgenSerial(IdgenCapped), idgenParallel(IdgenCapped)},
		{"idgen-borrow", 1, idgenSerial(IdgenBorrow), idgenParallel(IdgenBorrow)},
		{"idgen-borrow-nextn1000", NextNBlock, nextNSerial, nextNParallel},
		{"idgen-appendtext", 1, appendText, nil},
		{"bwmarrin", 1, bwmarrinSerial(12), bwmarrinParallel(12)},
		{"bwmarrin-step22", 1, bwmarrinSerial(22), bwmarrinParallel(22)},
		{"sonyflake", 1, sonyflakeSerial, sonyflakeParallel},
		{"uuidv7", 1, uuidSerial, uuidParallel},
		{"typeid", 1, typeidSerial, typeidParallel},
		{"ulid", 1, ulidSerial, ulidParallel},
	}
}

// LookupBenchmark returns the benchmark called name.
func LookupBenchmark(name string) (Benchmark, bool) {
	for _, bm := range Benchmarks() {
		if bm.Name == name {
			return bm, true
		}
	}
	return Benchmark{}, false
}

// parallel sets par and runs body from b.RunParallel; body stops at the first error it
// reports, since only the benchmark's own goroutine may call b.Fatal.
func parallel(b *testing.B, par int, body func(pb *testing.PB) error) {
	if par > 0 {
		b.SetParallelism(par)
	}
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		if err := body(pb); err != nil {
			b.Error(err)
		}
	})
}

func mustIdgen(b *testing.B, newGen func() (*snowflake.Generator, error)) *snowflake.Generator {
	g, err := newGen()
	if err != nil {
		b.Fatal(err)
	}
	return g
}

func idgenSerial(newGen func() (*snowflake.Generator, error)) func(*testing.B) {
	return func(b *testing.B) {
		g := mustIdgen(b, newGen)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := g.Next(); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func idgenParallel(newGen func() (*snowflake.Generator, error)) func(*testing.B, int) {
	return func(b *testing.B, par int) {
		g := mustIdgen(b, newGen)
		parallel(b, par, func(pb *testing.PB) error {
			for pb.Next() {
				if _, err := g.Next(); err != nil {
					return err
				}
			}
			return nil
		})
	}
}

// reportPerID adds the ns/ID metric to a benchmark whose operations issue n IDs each.
func reportPerID(b *testing.B, n int) {
	if b.N > 0 {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/ID")
	}
}

func nextNSerial(b *testing.B) {
	g := mustIdgen(b, IdgenBorrow)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := g.NextN(ctx, NextNBlock); err != nil {
			b.Fatal(err)
		}
	}
	reportPerID(b, NextNBlock)
}

func nextNParallel(b *testing.B, par int) {
	g := mustIdgen(b, IdgenBorrow)
	ctx := context.Background()
	parallel(b, par, func(pb *testing.PB) error {
		for pb.Next() {
			if _, err := g.NextN(ctx, NextNBlock); err != nil {
				return err
			}
		}
		return nil
	})
	reportPerID(b, NextNBlock)
}

// appendText measures writing an ID as decimal text into a buffer that is reused.
func appendText(b *testing.B) {
	g := mustIdgen(b, IdgenBorrow)
	id, err := g.Next()
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 0, 32)
	b.ReportAllocs()
	for b.Loop() {
		if buf, err = id.AppendText(buf[:0]); err != nil {
			b.Fatal(err)
		}
	}
}

func bwmarrinSerial(stepBits uint8) func(*testing.B) {
	return func(b *testing.B) {
		n, err := Bwmarrin(stepBits)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			n.Generate()
		}
	}
}

func bwmarrinParallel(stepBits uint8) func(*testing.B, int) {
	return func(b *testing.B, par int) {
		n, err := Bwmarrin(stepBits)
		if err != nil {
			b.Fatal(err)
		}
		parallel(b, par, func(pb *testing.PB) error {
			for pb.Next() {
				n.Generate()
			}
			return nil
		})
	}
}

func sonyflakeSerial(b *testing.B) {
	sf, err := Sonyflake()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := sf.NextID(); err != nil {
			b.Fatal(err)
		}
	}
}

func sonyflakeParallel(b *testing.B, par int) {
	sf, err := Sonyflake()
	if err != nil {
		b.Fatal(err)
	}
	parallel(b, par, func(pb *testing.PB) error {
		for pb.Next() {
			if _, err := sf.NextID(); err != nil {
				return err
			}
		}
		return nil
	})
}

func uuidSerial(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := uuid.NewV7(); err != nil {
			b.Fatal(err)
		}
	}
}

func uuidParallel(b *testing.B, par int) {
	parallel(b, par, func(pb *testing.PB) error {
		for pb.Next() {
			if _, err := uuid.NewV7(); err != nil {
				return err
			}
		}
		return nil
	})
}

// TypeIDPrefix is the prefix of the TypeIDs generated here.
const TypeIDPrefix = "user"

// errEmptyTypeID is returned if a TypeID prints empty; checking for it keeps the compiler
// from dropping the String call whose cost is measured.
var errEmptyTypeID = errors.New("bench: typeid printed an empty string")

// newTypeID generates a TypeID and prints it, the way a caller gets one to store.
func newTypeID() error {
	tid, err := typeid.WithPrefix(TypeIDPrefix)
	if err != nil {
		return err
	}
	if tid.String() == "" {
		return errEmptyTypeID
	}
	return nil
}

func typeidSerial(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if err := newTypeID(); err != nil {
			b.Fatal(err)
		}
	}
}

func typeidParallel(b *testing.B, par int) {
	parallel(b, par, func(pb *testing.PB) error {
		for pb.Next() {
			if err := newTypeID(); err != nil {
				return err
			}
		}
		return nil
	})
}

func ulidSerial(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		ulid.Make()
	}
}

func ulidParallel(b *testing.B, par int) {
	parallel(b, par, func(pb *testing.PB) error {
		for pb.Next() {
			ulid.Make()
		}
		return nil
	})
}
