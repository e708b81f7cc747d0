package mixed

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/idgen/idgen/runtime/codec"
	"github.com/idgen/idgen/runtime/snowflake"
)

// idValue is what every generated type's value has.
type idValue interface {
	comparable
	String() string
	MarshalJSON() ([]byte, error)
}

// idPointer is what every generated type's pointer has.
type idPointer[T any] interface {
	*T
	UnmarshalText([]byte) error
	UnmarshalJSON([]byte) error
}

// kindCheck is one generated type under the canonical-form checks.
type kindCheck struct {
	name string
	// text checks s against the type's text forms; value checks a value made from x
	// and raw.
	text  func(t *testing.T, s string)
	value func(t *testing.T, x int64, raw []byte)
}

// canonicalText checks, for a type whose Parse is parse: an accepted s prints back as
// itself (lowercased where the text is case-insensitive hex, as RFC 9562 says of UUIDs),
// UnmarshalText agrees with Parse, and accepted JSON is valid JSON that is the canonical
// JSON of its value, the quoted canonical text or, for a decimal snowflake ID (numbers),
// the bare decimal text. Every refusal matches codec.ErrInvalid.
func canonicalText[T idValue, P idPointer[T]](parse func(string) (T, error), fold, numbers bool) func(*testing.T, string) {
	return func(t *testing.T, s string) {
		canon := s
		if fold {
			canon = strings.ToLower(s)
		}
		v, err := parse(s)
		if err != nil {
			if !errors.Is(err, codec.ErrInvalid) {
				t.Fatalf("Parse(%q): %v does not match codec.ErrInvalid", s, err)
			}
		} else if back := v.String(); back != canon {
			t.Fatalf("Parse(%q).String() = %q", s, back)
		}
		var u, zero T
		uerr := P(&u).UnmarshalText([]byte(s))
		switch {
		case s == "":
			// Empty text is the zero value of every kind (an unset optional parameter),
			// though Parse refuses it.
			if uerr != nil || u != zero || err == nil {
				t.Fatalf("UnmarshalText(\"\") = %v, %v; Parse(\"\") = %v", u, uerr, err)
			}
		case (uerr == nil) != (err == nil) || uerr == nil && u != v:
			t.Fatalf("UnmarshalText(%q) = %v, %v; Parse = %v, %v", s, u, uerr, v, err)
		}

		var j T
		b := []byte(s)
		if err := P(&j).UnmarshalJSON(b); err != nil {
			if !errors.Is(err, codec.ErrInvalid) {
				t.Fatalf("UnmarshalJSON(%q): %v does not match codec.ErrInvalid", s, err)
			}
			return
		}
		if !json.Valid(b) {
			t.Fatalf("UnmarshalJSON accepted %q, which encoding/json would never pass", s)
		}
		if s == "null" {
			return
		}
		if s == `""` {
			if j != zero {
				t.Fatalf(`UnmarshalJSON("") = %v, want the zero value`, j)
			}
			return
		}
		out, err := j.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		quoted := `"` + j.String() + `"`
		if fold {
			b = []byte(strings.ToLower(s))
		}
		if string(b) != string(out) && string(b) != quoted && (!numbers || string(b) != j.String()) {
			t.Fatalf("UnmarshalJSON(%q) = %v, whose JSON is %s and text %q", s, j, out, j.String())
		}
	}
}

// canonicalValue checks Parse(String(v)) == v and the JSON round trip.
func canonicalValue[T idValue, P idPointer[T]](t *testing.T, v T, parse func(string) (T, error)) {
	t.Helper()
	s := v.String()
	back, err := parse(s)
	if err != nil || back != v {
		t.Fatalf("Parse(String(%v)) = %v, %v", v, back, err)
	}
	b, err := v.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var j T
	if err := P(&j).UnmarshalJSON(b); err != nil || j != v {
		t.Fatalf("UnmarshalJSON(%s) = %v, %v, want %v", b, j, err, v)
	}
}

func bytes16(raw []byte) (a [16]byte) { copy(a[:], raw); return a }

func bytes12(raw []byte) (a [12]byte) { copy(a[:], raw); return a }

var kinds = []kindCheck{
	{"prefixed snowflake", canonicalText[CustomerID](ParseCustomerID, false, false), func(t *testing.T, x int64, _ []byte) {
		canonicalValue[CustomerID](t, CustomerID(x&(1<<63-1)), ParseCustomerID)
	}},
	{"decimal snowflake", canonicalText[LedgerID](ParseLedgerID, false, true), func(t *testing.T, x int64, _ []byte) {
		canonicalValue[LedgerID](t, LedgerID(x&(1<<63-1)), ParseLedgerID)
	}},
	{"json=number snowflake", canonicalText[EventID](ParseEventID, false, true), func(t *testing.T, x int64, _ []byte) {
		canonicalValue[EventID](t, EventID(x&(1<<63-1)), ParseEventID)
	}},
	{"business number", func(t *testing.T, s string) {
		canonicalText[PaymentNo](ParsePaymentNo, false, false)(t, s)
		// A number is the one text of its snowflake ID: formatting the ID it holds gives
		// the same number back.
		if n, err := ParsePaymentNo(s); err == nil {
			id, err := n.Snowflake()
			if err != nil {
				t.Fatal(err)
			}
			if again, err := paymentNoFormat.Format(id); err != nil || again != s {
				t.Fatalf("%q holds %d, which formats as %q, %v", s, id, again, err)
			}
		}
	}, func(t *testing.T, x int64, _ []byte) {
		s, err := paymentNoFormat.Format(snowflake.ID(x & (1<<63 - 1)))
		if err != nil {
			return // beyond the layout's lifetime or the time field's years
		}
		canonicalValue[PaymentNo](t, PaymentNo(s), ParsePaymentNo)
		if id, err := PaymentNo(s).Snowflake(); err != nil || id != snowflake.ID(x&(1<<63-1)) {
			t.Fatalf("%q -> %d, %v, want %d", s, id, err, x&(1<<63-1))
		}
	}},
	{"uuid7", canonicalText[TraceID](ParseTraceID, true, false), func(t *testing.T, _ int64, raw []byte) {
		canonicalValue[TraceID](t, TraceID(bytes16(raw)), ParseTraceID)
	}},
	{"typeid", canonicalText[InvoiceTID](ParseInvoiceTID, false, false), func(t *testing.T, _ int64, raw []byte) {
		u := InvoiceTID(bytes16(raw))
		if _, err := ParseInvoiceTID(u.String()); err != nil {
			// A TypeID's first base32 character holds 3 bits: every 16 bytes encode.
			t.Fatalf("%x: %v", raw, err)
		}
		canonicalValue[InvoiceTID](t, u, ParseInvoiceTID)
	}},
	{"objectid", canonicalText[DocumentID](ParseDocumentID, true, false), func(t *testing.T, _ int64, raw []byte) {
		canonicalValue[DocumentID](t, DocumentID(bytes12(raw)), ParseDocumentID)
	}},
}

// canonicalSeeds are texts near the forms: leading zeros, spaces of every sort, escapes,
// case, and one valid text of each kind.
var canonicalSeeds = []string{
	"0", "7", "007", "0253975777475850240", "253975777475850240", "9223372036854775807", "9223372036854775808",
	"042", "\v42", "\u00a042", " 42", "42 ", "+42", "-0", "4e1",
	`"42"`, `"042"`, `"\v42"`, "\"\v42\"", `"\u00a042"`, "\"\u00a042\"", `"4\u0032"`, ` "42"`, "null", " null", `""`,
	"cus_0000000000007", "cus_000000000000I", "CUS_0000000000007", `"cus_0000000000007"`,
	"PAY202604081234560000000000420", "PAY20260408123456000000000042",
	"0190a6f4-7c3e-7b5a-9c1d-2e3f4a5b6c7d", "0190A6F4-7C3E-7B5A-9C1D-2E3F4A5B6C7D", "{0190a6f4-7c3e-7b5a-9c1d-2e3f4a5b6c7d}",
	`"0190A6F4-7C3E-7B5A-9C1D-2E3F4A5B6C7D"`, "invoice_01h455vb4pex5vsknk084sn02q", "invoice_01H455VB4PEX5VSKNK084SN02Q",
	"507f1f77bcf86cd799439011", "507F1F77BCF86CD799439011", `"507F1F77BCF86CD799439011"`,
}

// FuzzCanonical asserts, for every kind the generator writes, Parse(String(x)) == x for
// every value and String(Parse(s)) == s for every accepted s (lowercased for hex forms,
// which are read in either case), and that UnmarshalJSON accepts only JSON encoding/json
// would pass, in the value's canonical JSON or quoted canonical text.
func FuzzCanonical(f *testing.F) {
	for i, s := range canonicalSeeds {
		f.Add(s, int64(i)*253975777475850240, []byte(s))
	}
	// The current text of one value of each kind.
	for _, s := range []string{CustomerID(253975777475850240).String(), mustPayment(f), TraceID{1, 0x90, 0xa6}.String(), InvoiceTID{1, 2}.String()} {
		f.Add(s, int64(len(s)), []byte(s))
		f.Add(`"`+s+`"`, int64(-len(s)), []byte(s))
	}
	f.Fuzz(func(t *testing.T, s string, x int64, raw []byte) {
		for _, k := range kinds {
			k.text(t, s)
			k.value(t, x, raw)
		}
	})
}

func mustPayment(f *testing.F) string {
	s, err := paymentNoFormat.Format(253975777475850240)
	if err != nil {
		f.Fatal(err)
	}
	return s
}

// TestCanonicalForms: the texts the issue found accepted are refused now.
func TestCanonicalForms(t *testing.T) {
	for _, tc := range []struct {
		in   string
		json bool
		do   func([]byte) error
	}{
		{"0253975777475850240", false, func(b []byte) error { var v LedgerID; return v.UnmarshalText(b) }},
		{`"0253975777475850240"`, true, func(b []byte) error { var v LedgerID; return v.UnmarshalJSON(b) }},
		{`042`, true, func(b []byte) error { var v EventID; return v.UnmarshalJSON(b) }},
		{"\v42", true, func(b []byte) error { var v EventID; return v.UnmarshalJSON(b) }},
		{"\u00a042", true, func(b []byte) error { var v EventID; return v.UnmarshalJSON(b) }},
		{`"\u00a042"`, true, func(b []byte) error { var v LedgerID; return v.UnmarshalJSON(b) }},
		{` "cus_0000000000007"`, true, func(b []byte) error { var v CustomerID; return v.UnmarshalJSON(b) }},
		{`42`, true, func(b []byte) error { var v CustomerID; return v.UnmarshalJSON(b) }},
		{` "PAY"`, true, func(b []byte) error { var v PaymentNo; return v.UnmarshalJSON(b) }},
	} {
		if err := tc.do([]byte(tc.in)); !errors.Is(err, codec.ErrInvalid) {
			t.Errorf("%q accepted (%v)", tc.in, err)
		}
	}
	// Through encoding/json, whitespace around values is JSON's, not the ID's: it passes
	// each value without it.
	var doc struct {
		Ledger   LedgerID   `json:"ledger"`
		Event    EventID    `json:"event"`
		Customer CustomerID `json:"customer"`
		Payment  PaymentNo  `json:"payment"`
		Trace    TraceID    `json:"trace"`
	}
	in := "\n { \"ledger\" :\t\"42\" , \"event\": 7 ,\"customer\": \"cus_0000000000007\", \"payment\": null,\r\n \"trace\": \"0190A6F4-7C3E-7B5A-9C1D-2E3F4A5B6C7D\" } \n"
	if err := json.Unmarshal([]byte(in), &doc); err != nil || doc.Ledger != 42 || doc.Event != 7 || doc.Customer != 7 || doc.Trace.String() != "0190a6f4-7c3e-7b5a-9c1d-2e3f4a5b6c7d" {
		t.Errorf("json.Unmarshal = %+v, %v", doc, err)
	}
	var top LedgerID
	if err := json.Unmarshal([]byte(" \"42\"\n"), &top); err != nil || top != 42 {
		t.Errorf("json.Unmarshal of a top-level value with space around = %v, %v", top, err)
	}
	for _, k := range kinds {
		for i, s := range canonicalSeeds {
			k.text(t, s)
			k.value(t, int64(i)*253975777475850240, []byte(s))
		}
	}
}
