package typeids

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/idgen/idgen"
	"github.com/idgen/idgen/golden"
	"github.com/idgen/idgen/runtime/codec"
)

func TestEdges(t *testing.T) {
	if (UserTID{}).Prefix() != "user" || (LineItemTID{}).Prefix() != "line_item" || (BareTID{}).Prefix() != "" || (UserTID{}).Kind() != idgen.KindTypeID {
		t.Errorf("Prefix/Kind: %q %q %q %q", UserTID{}.Prefix(), LineItemTID{}.Prefix(), BareTID{}.Prefix(), UserTID{}.Kind())
	}
	u, err := NewUserTID()
	if err != nil {
		t.Fatal(err)
	}
	golden.EmptyIsZero[UserTID](t, u, ParseUserTID)
	golden.EmptyIsZero[LineItemTID](t, LineItemTID(u), ParseLineItemTID)
	golden.EmptyIsZero[BareTID](t, BareTID(u), ParseBareTID)
	for _, v := range []UserTID{{}, u} {
		if !golden.RoundTrip[UserTID](t, v, ParseUserTID) || !golden.RoundTrip[LineItemTID](t, LineItemTID(v), ParseLineItemTID) || !golden.RoundTrip[BareTID](t, BareTID(v), ParseBareTID) {
			t.Errorf("%v refused", v)
		}
	}
	var x UserTID
	for _, in := range []any{int64(1), json.Number("1"), LineItemTID(u).String()} {
		if err := x.UnmarshalGQL(in); !errors.Is(err, codec.ErrInvalid) {
			t.Errorf("UnmarshalGQL(%#v) = %v", in, err)
		}
	}
	// The registry tells a TypeID's type by its prefix, an underscore in it included, and
	// its storage by sql=.
	for _, tc := range []struct {
		text    string
		want    any
		storage idgen.Storage
	}{
		{u.String(), u, idgen.StorageUUID},
		{LineItemTID(u).String(), LineItemTID(u), idgen.StorageText},
	} {
		typ, got, err := idgen.Resolve(tc.text)
		if err != nil || got != tc.want || typ.Storage != tc.storage {
			t.Errorf("Resolve(%q) = %+v, %v, %v", tc.text, typ, got, err)
		}
	}
	if _, _, err := idgen.Resolve(BareTID(u).String()); !errors.Is(err, idgen.ErrUnknownPrefix) {
		t.Errorf("Resolve(bare) = %v", err)
	}
	if err := idgen.CheckPrefixes(); err != nil {
		t.Error(err)
	}
}

// FuzzRoundTrip: for any value, every writer's output is read back by every reader as the
// same value; any text the readers accept round-trips.
func FuzzRoundTrip(f *testing.F) {
	for _, s := range []string{"", "user_01h455vb4pex5vsknk084sn02q", "user_01H455VB4PEX5VSKNK084SN02Q", "line_item_01h455vb4pex5vsknk084sn02q", "01h455vb4pex5vsknk084sn02q", "user_81h455vb4pex5vsknk084sn02q", "user_"} {
		f.Add([]byte(s), s)
	}
	f.Fuzz(func(t *testing.T, raw []byte, s string) {
		var v UserTID
		copy(v[:], raw)
		if !golden.RoundTrip[UserTID](t, v, ParseUserTID) || !golden.RoundTrip[LineItemTID](t, LineItemTID(v), ParseLineItemTID) || !golden.RoundTrip[BareTID](t, BareTID(v), ParseBareTID) {
			t.Fatalf("%x refused", raw)
		}
		golden.ReadText[UserTID](t, s, ParseUserTID)
		golden.ReadText[LineItemTID](t, s, ParseLineItemTID)
		golden.ReadText[BareTID](t, s, ParseBareTID)
	})
}
