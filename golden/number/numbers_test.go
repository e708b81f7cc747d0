package number

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idgen/idgen"
	"github.com/idgen/idgen/runtime/codec"
	num "github.com/idgen/idgen/runtime/number"
	"github.com/idgen/idgen/runtime/snowflake"
	"github.com/idgen/idgen/runtime/snowflake/snowflaketest"
)

var shanghai = time.FixedZone("Asia/Shanghai", 8*3600)

// sink keeps a result on the heap, as a caller that sends it does.
var sink []byte

func TestOrderNo(t *testing.T) {
	// Issued at 12:34:56.789 Shanghai time on 2026-04-08 by worker 42.
	clk := snowflaketest.NewClock(time.Date(2026, 4, 8, 12, 34, 56, 789_000_000, shanghai))
	g, err := snowflake.New(snowflake.Classic(), 42, snowflake.Options{Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	o, err := NewOrderNoFrom(context.Background(), g)
	if err != nil {
		t.Fatal(err)
	}
	// 789 ms into the second, worker 42, sequence 0: (789*1024 + 42) * 4096 = 3309477888.
	if o != "ORD202604081234563309477888" {
		t.Fatalf("OrderNo = %s", o)
	}
	if !o.Time().Equal(clk.Now()) {
		t.Errorf("Time = %v, want %v", o.Time(), clk.Now())
	}
	if p, err := o.Parts(); err != nil || p.Worker != 42 || p.Seq != 0 {
		t.Errorf("Parts = %+v, %v", p, err)
	}
	if back, err := ParseOrderNo(string(o)); err != nil || back != o {
		t.Fatalf("Parse = %v, %v", back, err)
	}
	// Within one worker, the numbers sort like the order they were issued in.
	var made []string
	for range 5000 {
		n, err := NewOrderNoFrom(context.Background(), g)
		if err != nil {
			t.Fatal(err)
		}
		made = append(made, string(n))
		clk.Advance(time.Duration(len(made)%7) * 100 * time.Microsecond)
	}
	if !slices.IsSorted(made) || len(slices.Compact(slices.Clone(made))) != len(made) {
		t.Fatal("numbers out of order or repeated")
	}
}

func TestCheckDigit(t *testing.T) {
	clk := snowflaketest.NewClock(time.Date(2026, 4, 8, 9, 0, 0, 0, time.UTC))
	g, _ := snowflake.New(snowflake.Classic(), 1, snowflake.Options{Clock: clk})
	n, err := NewTxnNoFrom(context.Background(), g)
	if err != nil {
		t.Fatal(err)
	}
	if len(n) != 3+10+14+1 { // TXN, to the hour, 3600000*1024*4096 < 10^14, check digit
		t.Fatalf("TxnNo %s has length %d", n, len(n))
	}
	// Every single-digit typo is caught.
	for i := 3; i < len(n); i++ {
		b := []byte(n)
		b[i] = '0' + (b[i]-'0'+1)%10
		if _, err := ParseTxnNo(string(b)); !errors.Is(err, codec.ErrInvalid) || !errors.Is(err, num.ErrInvalid) {
			t.Errorf("typo at %d: %s accepted (%v)", i, b, err)
		}
	}
}

func TestNumberText(t *testing.T) {
	const valid = "ORD202604081234563309477888"
	for _, bad := range []string{"", "ORD", "ORX202604081234563309477888", "ORD202613081234563309477888", "ORD20260408123456330947788", valid + "1", "ord202604081234563309477888"} {
		_, err := ParseOrderNo(bad)
		var pe *codec.ParseError
		if !errors.As(err, &pe) || pe.Type != "OrderNo" || !errors.Is(err, num.ErrInvalid) {
			t.Errorf("ParseOrderNo(%q) = %v", bad, err)
		}
	}
	type doc struct {
		N OrderNo `json:"n"`
	}
	b, _ := json.Marshal(doc{N: valid})
	if string(b) != `{"n":"`+valid+`"}` {
		t.Fatalf("JSON %s", b)
	}
	// One allocation for the JSON text; a value set by hand that is no number (one that
	// would need escaping included) is refused, as every reader refuses it.
	in := OrderNo(valid)
	if n := testing.AllocsPerRun(100, func() { sink, _ = in.MarshalJSON() }); n > 1 {
		t.Errorf("MarshalJSON: %v allocs, want at most 1", n)
	}
	for _, odd := range []OrderNo{`say "hi"<&>`, "tab\t\u2028", "bad \xff"} {
		if got, err := odd.MarshalJSON(); !errors.Is(err, codec.ErrInvalid) {
			t.Errorf("MarshalJSON(%q) = %s %v, want an error matching codec.ErrInvalid", odd, got, err)
		}
	}
	var d doc
	if err := json.Unmarshal(b, &d); err != nil || d.N != valid {
		t.Fatalf("back %v %v", d, err)
	}
	if err := json.Unmarshal([]byte(`{"n":"ORD1"}`), &d); !errors.Is(err, codec.ErrInvalid) {
		t.Errorf("bad JSON number: %v", err)
	}
	if err := json.Unmarshal([]byte(`{"n":12}`), &d); !errors.Is(err, codec.ErrInvalid) {
		t.Errorf("JSON number: %v", err)
	}
	// The zero number round-trips through JSON and SQL as empty text and NULL.
	var z doc
	b, _ = json.Marshal(z)
	if err := json.Unmarshal(b, &z); err != nil || !z.N.IsZero() {
		t.Errorf("zero: %s %v", b, err)
	}
	var s OrderNo
	for _, src := range []any{valid, []byte(valid)} {
		if err := s.Scan(src); err != nil || s != valid {
			t.Errorf("Scan(%T) = %v %v", src, s, err)
		}
	}
	if err := s.Scan(nil); err != nil || !s.IsZero() {
		t.Errorf("Scan(nil) = %q %v", s, err)
	}
	if err := s.Scan("ORD1"); !errors.Is(err, codec.ErrInvalid) {
		t.Errorf("Scan(bad) = %v", err)
	}
	if err := s.Scan(int64(5)); !errors.Is(err, codec.ErrInvalid) {
		t.Errorf("Scan(int64) = %v", err)
	}
	if v, _ := OrderNo(valid).Value(); v != valid {
		t.Errorf("Value = %v", v)
	}
}

func TestSourceLayout(t *testing.T) {
	g, _ := snowflake.New(snowflake.Sonyflake(), 1, snowflake.Options{})
	if _, err := NewOrderNoFrom(context.Background(), g); err == nil || !strings.Contains(err.Error(), "layout") {
		t.Fatalf("sonyflake source for a classic number: %v", err)
	}
	g2, _ := snowflake.New(snowflake.ClassicDC(), 1, snowflake.Options{})
	idgen.SetDefault(g2)
	defer idgen.SetDefault(nil)
	r, err := NewRefundNo()
	if err != nil || !strings.HasPrefix(string(r), "RF-") {
		t.Fatalf("RefundNo = %q, %v", r, err)
	}
}

func FuzzOrderNo(f *testing.F) {
	f.Add("ORD202604081234563309477888")
	f.Add("ORD202604081234563309477889")
	f.Add("ORD209912312359594194303999")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseOrderNo(s)
		if err != nil {
			if !errors.Is(err, codec.ErrInvalid) {
				t.Fatal(err)
			}
			return
		}
		id, err := n.Snowflake()
		if err != nil {
			t.Fatal(err)
		}
		var o OrderNo
		if err := o.UnmarshalJSON([]byte(`"` + s + `"`)); err != nil || o != n || id < 0 {
			t.Fatalf("%q: %v %v", s, o, err)
		}
	})
}
