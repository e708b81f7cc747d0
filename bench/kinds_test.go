package bench_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	jetify "go.jetify.com/typeid"

	"github.com/idgen/idgen/bench"
	"github.com/idgen/idgen/golden/number"
	"github.com/idgen/idgen/golden/typeids"
	"github.com/idgen/idgen/runtime/snowflake"
)

// BenchmarkKinds measures New, String, MarshalJSON and Parse of each kind of generated ID
// type and of the peers (MarshalText in place of MarshalJSON), as
// BenchmarkKinds/<kind>/<op>, and New+String of both TypeIDs. New of the snowflake and
// number kinds takes IDs from a fresh borrowing generator set as idgen's default source.
func BenchmarkKinds(b *testing.B) {
	for _, k := range bench.Kinds() {
		for _, op := range k.Ops {
			b.Run(k.Name+"/"+op.Name, op.Bench)
		}
	}
}

// fixedTime is when the fixed IDs were made.
var fixedTime = time.Date(2026, 4, 8, 12, 34, 56, 789e6, time.UTC)

func TestFixedIDs(t *testing.T) {
	layout := snowflake.Classic()
	p, err := layout.Decode(snowflake.ID(bench.FixedSnowflake))
	if err != nil || p.Tick != layout.Tick(fixedTime) || p.Worker != 1 || p.Seq != 42 {
		t.Errorf("FixedSnowflake decodes to %+v, %v; want tick %d, worker 1, sequence 42", p, err, layout.Tick(fixedTime))
	}
	u := uuid.UUID(bench.FixedUUID())
	if u.Version() != 7 || u.Variant() != uuid.RFC4122 || time.Unix(u.Time().UnixTime()).UnixMilli() != fixedTime.UnixMilli() {
		t.Errorf("FixedUUID %v: version %d, variant %v, time %v; want a UUIDv7 of %v", u, u.Version(), u.Variant(), time.Unix(u.Time().UnixTime()), fixedTime)
	}
}

// fixedSource hands out bench.FixedSnowflake.
type fixedSource struct{}

func (fixedSource) NextInt64(context.Context) (int64, error) { return bench.FixedSnowflake, nil }

// TestFixedTexts: the business numbers of the fixed ID carry its time, and idgen's TypeID
// text of the fixed UUID is the one jetify parses in its benchmark.
func TestFixedTexts(t *testing.T) {
	ctx := context.Background()
	o, err := number.NewOrderNoFrom(ctx, fixedSource{})
	if err != nil || !strings.HasPrefix(o.String(), "ORD20260408203456") || !o.Time().Equal(fixedTime) {
		t.Errorf("OrderNo of the fixed ID = %q (time %v), %v", o, o.Time(), err)
	}
	n, err := number.NewTxnNoFrom(ctx, fixedSource{})
	if err != nil || !strings.HasPrefix(n.String(), "TXN2026040812") || !n.Time().Equal(fixedTime) {
		t.Errorf("TxnNo of the fixed ID = %q (time %v), %v", n, n.Time(), err)
	}
	u := bench.FixedUUID()
	j, err := jetify.FromUUIDBytesWithPrefix(bench.TypeIDPrefix, u[:])
	if err != nil {
		t.Fatal(err)
	}
	if ours := typeids.UserTID(u).String(); ours != j.String() {
		t.Errorf("idgen %q, jetify %q", ours, j.String())
	}
}

func TestLookupKindOp(t *testing.T) {
	for _, k := range bench.Kinds() {
		want := []string{"New", "String", "MarshalJSON", "Parse"}
		if k.Peer {
			want[2] = "MarshalText"
		}
		var names []string
		for _, op := range k.Ops {
			names = append(names, op.Name)
		}
		for i, name := range want {
			if i >= len(names) || names[i] != name {
				t.Errorf("%s: ops %q, want %q first", k.Name, names, want)
				break
			}
			if _, ok := bench.LookupKindOp(k.Name, name); !ok {
				t.Errorf("LookupKindOp(%q, %q) found nothing", k.Name, name)
			}
		}
	}
	for _, kind := range []string{"typeid", "jetify-typeid"} {
		if _, ok := bench.LookupKindOp(kind, "New+String"); !ok {
			t.Errorf("LookupKindOp(%q, New+String) found nothing", kind)
		}
	}
	if _, ok := bench.LookupKindOp("snowflake", "Nope"); ok {
		t.Error("LookupKindOp found an op that does not exist")
	}
}

// TestREADMEKinds: the README's table of generated ID kinds lists exactly the kinds
// Kinds returns, in its order, each with the type it measures, so neither can change
// without the other.
func TestREADMEKinds(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## Generated ID kinds\n")
	if !ok {
		t.Fatal("README.md has no section \"Generated ID kinds\"")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var rows [][]string
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		rows = append(rows, cells)
	}
	kinds := bench.Kinds()
	if len(rows) != len(kinds) {
		t.Fatalf("the README's table has %d kinds, Kinds %d", len(rows), len(kinds))
	}
	for i, k := range kinds {
		if len(rows[i]) < 2 || rows[i][0] != "`"+k.Name+"`" || !strings.HasSuffix(rows[i][1], k.Type+"`") {
			t.Errorf("README row %d = %q, want kind `%s` of type %s", i+1, rows[i], k.Name, k.Type)
		}
	}
}
