package bench

import (
	"context"
	"testing"

	"github.com/google/uuid"
	jetify "go.jetify.com/typeid"

	"github.com/idgen/idgen"
	"github.com/idgen/idgen/golden/number"
	"github.com/idgen/idgen/golden/prefixed"
	"github.com/idgen/idgen/golden/snowflakeid"
	"github.com/idgen/idgen/golden/typeids"
	"github.com/idgen/idgen/golden/uuid7"
)

// FixedSnowflake is the ID of the String, MarshalJSON and Parse benchmarks of the snowflake
// and number kinds: Classic layout, 2026-04-08 12:34:56.789 UTC, worker 1, sequence 42.
const FixedSnowflake int64 = 167613182410493994

// FixedUUID returns the UUIDv7 of the String, MarshalJSON and Parse benchmarks of the UUID
// and TypeID kinds and peers: 019d6d16-b095-7c3a-9d2e-4b5c6d7e8f90, made at
// 2026-04-08 12:34:56.789 UTC.
func FixedUUID() [16]byte {
	return [16]byte{0x01, 0x9d, 0x6d, 0x16, 0xb0, 0x95, 0x7c, 0x3a, 0x9d, 0x2e, 0x4b, 0x5c, 0x6d, 0x7e, 0x8f, 0x90}
}

// A Kind is one kind of ID type that cmd/idgen-gen writes, measured through the golden
// type that stands for it, or a peer library's ID, with the operations measured on it.
type Kind struct {
	// Name names it in benchmark output, as in "snowflake" or "jetify-typeid".
	Name string
	// Type is the Go type measured, as in "snowflakeid.UserID".
	Type string
	// Peer is set for the peer libraries.
	Peer bool
	// Ops are New, String, MarshalJSON and Parse, in that order, and New+String for the
	// TypeIDs. The peers have no MarshalJSON: encoding/json calls their MarshalText and
	// quotes the text, so they have MarshalText in its place.
	Ops []KindOp
}

// A KindOp is one operation of a kind. Bench calls the operation directly, not through a
// function value, and keeps what it returns, as a caller does.
type KindOp struct {
	// Name names it in benchmark output, as in "MarshalJSON".
	Name  string
	Bench func(b *testing.B)
}

// The benchmarks of the kinds store each result in one of these, as a caller stores or
// sends the ID or text it gets: a result that went nowhere could stay on the stack (a
// string of up to 32 bytes, a buffer of constant size) or its call could be dropped, and
// the benchmark would count less than callers pay. Only serial benchmarks write them.
var (
	sinkString string
	sinkBytes  []byte
	sinkInt    int64
	sinkUUID   [16]byte
	sinkTypeID jetify.AnyID
)

// Kinds returns the kinds of generated ID types, idgen's first, then the peers.
func Kinds() []Kind {
	return []Kind{
		{Name: "snowflake", Type: "snowflakeid.UserID", Ops: snowflakeOps()},
		{Name: "snowflake-prefixed", Type: "prefixed.UserID", Ops: prefixedOps()},
		{Name: "number", Type: "number.OrderNo", Ops: orderNoOps()},
		{Name: "number-check", Type: "number.TxnNo", Ops: txnNoOps()},
		{Name: "uuid7", Type: "uuid7.SessionID", Ops: uuid7Ops()},
		{Name: "typeid", Type: "typeids.UserTID", Ops: typeidOps()},
		{Name: "google-uuid", Type: "uuid.UUID", Peer: true, Ops: googleUUIDOps()},
		{Name: "jetify-typeid", Type: "typeid.AnyID", Peer: true, Ops: jetifyOps()},
	}
}

// LookupKindOp returns the operation called op of the kind called kind.
func LookupKindOp(kind, op string) (KindOp, bool) {
	for _, k := range Kinds() {
		if k.Name != kind {
			continue
		}
		for _, o := range k.Ops {
			if o.Name == op {
				return o, true
			}
		}
	}
	return KindOp{}, false
}

// useFreshDefault sets a fresh borrowing generator (IdgenBorrow) as idgen's default source
// for the rest of the benchmark, so New measures the code rather than the capped layout's
// 4,096,000 IDs/s, and puts the previous default back after.
func useFreshDefault(b *testing.B) {
	g := mustIdgen(b, IdgenBorrow)
	prev := idgen.Default()
	idgen.SetDefault(g)
	b.Cleanup(func() { idgen.SetDefault(prev) })
}

// fixedSource hands out the same ID every time: the fixed business numbers come from it.
type fixedSource int64

func (s fixedSource) NextInt64(context.Context) (int64, error) { return int64(s), nil }

func snowflakeOps() []KindOp {
	id := snowflakeid.UserID(FixedSnowflake)
	return []KindOp{
		{"New", func(b *testing.B) {
			useFreshDefault(b)
			b.ReportAllocs()
			for b.Loop() {
				v, err := snowflakeid.NewUserID()
				if err != nil {
					b.Fatal(err)
				}
				sinkInt = int64(v)
			}
		}},
		{"String", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkString = id.String()
			}
		}},
		{"MarshalJSON", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkBytes, _ = id.MarshalJSON()
			}
		}},
		{"Parse", func(b *testing.B) {
			text := id.String()
			b.ReportAllocs()
			for b.Loop() {
				v, err := snowflakeid.ParseUserID(text)
				if err != nil {
					b.Fatal(err)
				}
				sinkInt = int64(v)
			}
		}},
	}
}

func prefixedOps() []KindOp {
	id := prefixed.UserID(FixedSnowflake)
	return []KindOp{
		{"New", func(b *testing.B) {
			useFreshDefault(b)
			b.ReportAllocs()
			for b.Loop() {
				v, err := prefixed.NewUserID()
				if err != nil {
					b.Fatal(err)
				}
				sinkInt = int64(v)
			}
		}},
		{"String", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkString = id.String()
			}
		}},
		{"MarshalJSON", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkBytes, _ = id.MarshalJSON()
			}
		}},
		{"Parse", func(b *testing.B) {
			text := id.String()
			b.ReportAllocs()
			for b.Loop() {
				v, err := prefixed.ParseUserID(text)
				if err != nil {
					b.Fatal(err)
				}
				sinkInt = int64(v)
			}
		}},
	}
}

// fixedOrderNo returns the OrderNo of FixedSnowflake.
func fixedOrderNo(b *testing.B) number.OrderNo {
	n, err := number.NewOrderNoFrom(context.Background(), fixedSource(FixedSnowflake))
	if err != nil {
		b.Fatal(err)
	}
	return n
}

func orderNoOps() []KindOp {
	return []KindOp{
		{"New", func(b *testing.B) {
			useFreshDefault(b)
			b.ReportAllocs()
			for b.Loop() {
				v, err := number.NewOrderNo()
				if err != nil {
					b.Fatal(err)
				}
				sinkString = string(v)
			}
		}},
		{"String", func(b *testing.B) {
			n := fixedOrderNo(b)
			b.ReportAllocs()
			for b.Loop() {
				sinkString = n.String()
			}
		}},
		{"MarshalJSON", func(b *testing.B) {
			n := fixedOrderNo(b)
			b.ReportAllocs()
			for b.Loop() {
				var err error
				if sinkBytes, err = n.MarshalJSON(); err != nil {
					b.Fatal(err)
				}
			}
		}},
		{"Parse", func(b *testing.B) {
			text := fixedOrderNo(b).String()
			b.ReportAllocs()
			for b.Loop() {
				v, err := number.ParseOrderNo(text)
				if err != nil {
					b.Fatal(err)
				}
				sinkString = string(v)
			}
		}},
	}
}

// fixedTxnNo returns the TxnNo of FixedSnowflake.
func fixedTxnNo(b *testing.B) number.TxnNo {
	n, err := number.NewTxnNoFrom(context.Background(), fixedSource(FixedSnowflake))
	if err != nil {
		b.Fatal(err)
	}
	return n
}

func txnNoOps() []KindOp {
	return []KindOp{
		{"New", func(b *testing.B) {
			useFreshDefault(b)
			b.ReportAllocs()
			for b.Loop() {
				v, err := number.NewTxnNo()
				if err != nil {
					b.Fatal(err)
				}
				sinkString = string(v)
			}
		}},
		{"String", func(b *testing.B) {
			n := fixedTxnNo(b)
			b.ReportAllocs()
			for b.Loop() {
				sinkString = n.String()
			}
		}},
		{"MarshalJSON", func(b *testing.B) {
			n := fixedTxnNo(b)
			b.ReportAllocs()
			for b.Loop() {
				var err error
				if sinkBytes, err = n.MarshalJSON(); err != nil {
					b.Fatal(err)
				}
			}
		}},
		{"Parse", func(b *testing.B) {
			text := fixedTxnNo(b).String()
			b.ReportAllocs()
			for b.Loop() {
				v, err := number.ParseTxnNo(text)
				if err != nil {
					b.Fatal(err)
				}
				sinkString = string(v)
			}
		}},
	}
}

func uuid7Ops() []KindOp {
	id := uuid7.SessionID(FixedUUID())
	return []KindOp{
		{"New", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				v, err := uuid7.NewSessionID()
				if err != nil {
					b.Fatal(err)
				}
				sinkUUID = v
			}
		}},
		{"String", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkString = id.String()
			}
		}},
		{"MarshalJSON", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkBytes, _ = id.MarshalJSON()
			}
		}},
		{"Parse", func(b *testing.B) {
			text := id.String()
			b.ReportAllocs()
			for b.Loop() {
				v, err := uuid7.ParseSessionID(text)
				if err != nil {
					b.Fatal(err)
				}
				sinkUUID = v
			}
		}},
	}
}

func typeidOps() []KindOp {
	id := typeids.UserTID(FixedUUID())
	return []KindOp{
		{"New", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				v, err := typeids.NewUserTID()
				if err != nil {
					b.Fatal(err)
				}
				sinkUUID = v
			}
		}},
		{"String", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkString = id.String()
			}
		}},
		{"MarshalJSON", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkBytes, _ = id.MarshalJSON()
			}
		}},
		{"Parse", func(b *testing.B) {
			text := id.String()
			b.ReportAllocs()
			for b.Loop() {
				v, err := typeids.ParseUserTID(text)
				if err != nil {
					b.Fatal(err)
				}
				sinkUUID = v
			}
		}},
		{"New+String", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				v, err := typeids.NewUserTID()
				if err != nil {
					b.Fatal(err)
				}
				sinkString = v.String()
			}
		}},
	}
}

func googleUUIDOps() []KindOp {
	id := uuid.UUID(FixedUUID())
	return []KindOp{
		{"New", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				v, err := uuid.NewV7()
				if err != nil {
					b.Fatal(err)
				}
				sinkUUID = v
			}
		}},
		{"String", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkString = id.String()
			}
		}},
		{"MarshalText", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkBytes, _ = id.MarshalText()
			}
		}},
		{"Parse", func(b *testing.B) {
			text := id.String()
			b.ReportAllocs()
			for b.Loop() {
				v, err := uuid.Parse(text)
				if err != nil {
					b.Fatal(err)
				}
				sinkUUID = v
			}
		}},
	}
}

// fixedJetify returns jetify's TypeID of FixedUUID with prefix TypeIDPrefix.
func fixedJetify(b *testing.B) jetify.AnyID {
	u := FixedUUID()
	tid, err := jetify.FromUUIDBytesWithPrefix(TypeIDPrefix, u[:])
	if err != nil {
		b.Fatal(err)
	}
	return tid
}

func jetifyOps() []KindOp {
	return []KindOp{
		{"New", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				v, err := jetify.WithPrefix(TypeIDPrefix)
				if err != nil {
					b.Fatal(err)
				}
				sinkTypeID = v
			}
		}},
		{"String", func(b *testing.B) {
			tid := fixedJetify(b)
			b.ReportAllocs()
			for b.Loop() {
				sinkString = tid.String()
			}
		}},
		{"MarshalText", func(b *testing.B) {
			tid := fixedJetify(b)
			b.ReportAllocs()
			for b.Loop() {
				sinkBytes, _ = tid.MarshalText()
			}
		}},
		{"Parse", func(b *testing.B) {
			text := fixedJetify(b).String()
			b.ReportAllocs()
			for b.Loop() {
				v, err := jetify.FromString(text)
				if err != nil {
					b.Fatal(err)
				}
				sinkTypeID = v
			}
		}},
		{"New+String", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				v, err := jetify.WithPrefix(TypeIDPrefix)
				if err != nil {
					b.Fatal(err)
				}
				sinkString = v.String()
			}
		}},
	}
}
