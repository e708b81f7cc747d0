package number

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/idgen/idgen"
	"github.com/idgen/idgen/golden"
	"github.com/idgen/idgen/runtime/codec"
	"github.com/idgen/idgen/runtime/snowflake"
)

func TestEdges(t *testing.T) {
	if OrderNo("").Prefix() != "ORD" || RefundNo("").Prefix() != "RF-" || OrderNo("").Kind() != idgen.KindNumber {
		t.Errorf("Prefix/Kind: %q %q %q", OrderNo("").Prefix(), RefundNo("").Prefix(), OrderNo("").Kind())
	}
	const valid = "ORD202604081234563309477888"
	golden.EmptyIsZero[OrderNo](t, valid, ParseOrderNo)
	if !golden.RoundTrip[OrderNo](t, valid, ParseOrderNo) {
		t.Error("a valid number refused")
	}
	// The zero number: empty text and JSON "", NULL in SQL; all read back as zero, while
	// ParseOrderNo("") is an error (RoundTrip checks both).
	if !golden.RoundTrip[OrderNo](t, "", ParseOrderNo) {
		t.Error("the zero number refused")
	}
	if v, err := OrderNo("").Value(); v != nil || err != nil {
		t.Errorf("Value of the zero number = %#v, %v, want NULL", v, err)
	}
	if b, err := json.Marshal(struct{ N OrderNo }{}); err != nil || string(b) != `{"N":""}` {
		t.Errorf("JSON of the zero number = %s, %v", b, err)
	}
	// A number made by a conversion, which every reader refuses, is refused by every
	// writer: Value writes nothing to the database.
	for _, bad := range []OrderNo{"ORD-not-a-number", "ORD20260408123456330947788", "TXN2026040812123456789012345", " "} {
		if golden.RoundTrip[OrderNo](t, bad, ParseOrderNo) {
			t.Errorf("%q written", bad)
		}
	}
	v, err := OrderNo("ORD-not-a-number").Value()
	if v != nil || !errors.Is(err, codec.ErrInvalid) {
		t.Errorf("Value = %#v, %v", v, err)
	}
	var ve *codec.ValueError
	if !errors.As(err, &ve) || ve.Type != "OrderNo" || ve.Value != `"ORD-not-a-number"` {
		t.Errorf("Value error %v is not a *codec.ValueError naming the type and value", err)
	}
	if s := OrderNo("ORD-not-a-number").String(); s != "ORD-not-a-number" {
		t.Errorf("String = %q", s)
	}
	// GraphQL takes strings only: a literal number is refused, not converted.
	var o OrderNo
	for _, in := range []any{int64(2026), json.Number("2026"), "ORD-not-a-number"} {
		if err := o.UnmarshalGQL(in); !errors.Is(err, codec.ErrInvalid) {
			t.Errorf("UnmarshalGQL(%#v) = %v", in, err)
		}
	}
	// The registry resolves a number by its prefix and the digit after it.
	typ, got, err := idgen.Resolve(valid)
	if err != nil || got != any(OrderNo(valid)) || typ.Storage != idgen.StorageText || typ.Kind != idgen.KindNumber {
		t.Errorf("Resolve = %+v, %v, %v", typ, got, err)
	}
	if err := idgen.CheckPrefixes(); err != nil {
		t.Error(err)
	}
}

// FuzzRoundTrip: for any value (any string converted, or the number of any snowflake ID),
// every writer's output is read back by every reader as the same value, or every writer
// refuses it; any text the readers accept round-trips.
func FuzzRoundTrip(f *testing.F) {
	for _, s := range []string{"", "ORD202604081234563309477888", "ORD-not-a-number", "TXN20260408123309477888", "RF-202604081234003309477888", " ", "ORD"} {
		f.Add(int64(len(s))*253975777475850240, s)
	}
	f.Fuzz(func(t *testing.T, x int64, s string) {
		golden.RoundTrip[OrderNo](t, OrderNo(s), ParseOrderNo)
		golden.RoundTrip[TxnNo](t, TxnNo(s), ParseTxnNo)
		golden.RoundTrip[RefundNo](t, RefundNo(s), ParseRefundNo)
		if n, err := orderNoFormat.Format(snowflake.ID(x)); err == nil && !golden.RoundTrip[OrderNo](t, OrderNo(n), ParseOrderNo) {
			t.Fatalf("%q, the number of %d, refused", n, x)
		}
		if n, err := txnNoFormat.Format(snowflake.ID(x)); err == nil && !golden.RoundTrip[TxnNo](t, TxnNo(n), ParseTxnNo) {
			t.Fatalf("%q, the number of %d, refused", n, x)
		}
		golden.ReadText[OrderNo](t, s, ParseOrderNo)
		golden.ReadText[TxnNo](t, s, ParseTxnNo)
		golden.ReadText[RefundNo](t, s, ParseRefundNo)
	})
}
