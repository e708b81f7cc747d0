package objectids

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/idgen/idgen"
	"github.com/idgen/idgen/golden"
	"github.com/idgen/idgen/runtime/codec"
)

func TestEdges(t *testing.T) {
	if (DocumentID{}).Prefix() != "" || (DocumentID{}).Kind() != idgen.KindObjectID {
		t.Errorf("Prefix/Kind: %q %q", DocumentID{}.Prefix(), DocumentID{}.Kind())
	}
	d, err := NewDocumentID()
	if err != nil {
		t.Fatal(err)
	}
	golden.EmptyIsZero[DocumentID](t, d, ParseDocumentID)
	for _, v := range []DocumentID{{}, d} {
		if !golden.RoundTrip[DocumentID](t, v, ParseDocumentID) {
			t.Errorf("%v refused", v)
		}
	}
	var x DocumentID
	for _, in := range []any{int64(1), json.Number("1"), "507f1f77bcf86cd79943901"} {
		if err := x.UnmarshalGQL(in); !errors.Is(err, codec.ErrInvalid) {
			t.Errorf("UnmarshalGQL(%#v) = %v", in, err)
		}
	}
	typ, ok := idgen.TypeOf(golden.TypeOf[DocumentID]())
	if !ok || typ.Storage != idgen.StorageText || typ.Resolvable() {
		t.Errorf("registered as %+v, %v", typ, ok)
	}
}

// FuzzRoundTrip: for any value, every writer's output is read back by every reader as the
// same value; any text the readers accept round-trips.
func FuzzRoundTrip(f *testing.F) {
	for _, s := range []string{"", "507f1f77bcf86cd799439011", "507F1F77BCF86CD799439011", "507f1f77bcf86cd79943901g", "507f1f77bcf86cd7994390"} {
		f.Add([]byte(s), s)
	}
	f.Fuzz(func(t *testing.T, raw []byte, s string) {
		var v DocumentID
		copy(v[:], raw)
		if !golden.RoundTrip[DocumentID](t, v, ParseDocumentID) {
			t.Fatalf("%x refused", raw)
		}
		golden.ReadText[DocumentID](t, s, ParseDocumentID)
	})
}
