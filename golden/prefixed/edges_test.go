package prefixed

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/idgen/idgen"
	"github.com/idgen/idgen/golden"
	"github.com/idgen/idgen/runtime/codec"
)

func TestEdges(t *testing.T) {
	if UserID(0).Prefix() != "usr" || OrderID(0).Prefix() != "ord" || UserID(0).Kind() != idgen.KindSnowflake {
		t.Errorf("Prefix/Kind: %q %q %q", UserID(0).Prefix(), OrderID(0).Prefix(), UserID(0).Kind())
	}
	golden.EmptyIsZero[UserID](t, 42, ParseUserID)
	golden.EmptyIsZero[OrderID](t, 42, ParseOrderID)
	for _, v := range []UserID{0, 1, 253975777475850240, 1<<63 - 1} {
		if !golden.RoundTrip[UserID](t, v, ParseUserID) {
			t.Errorf("%d refused", v)
		}
	}
	// A negative ID, which every reader refuses, is refused by every writer; String
	// names it without panicking.
	for _, v := range []UserID{-1, -1 << 63} {
		if golden.RoundTrip[UserID](t, v, ParseUserID) {
			t.Errorf("%d written", v)
		}
	}
	if s := UserID(-1).String(); s != "UserID(-1)" {
		t.Errorf("String(-1) = %q", s)
	}
	if _, err := json.Marshal(struct{ ID UserID }{-1}); !errors.Is(err, codec.ErrInvalid) {
		t.Errorf("json.Marshal of UserID(-1): %v", err)
	}
	// GraphQL: a prefixed ID is text; an integer is refused, as JSON numbers are.
	var u UserID
	for _, in := range []any{int64(7), 7, json.Number("7"), 7.0, "7", "ord_0000000000007"} {
		if err := u.UnmarshalGQL(in); !errors.Is(err, codec.ErrInvalid) {
			t.Errorf("UnmarshalGQL(%#v) = %v", in, err)
		}
	}
	// The registry knows both types, and their prefixes do not clash.
	if err := idgen.CheckPrefixes(); err != nil {
		t.Error(err)
	}
	typ, v, err := idgen.Resolve(OrderID(9).String())
	if err != nil || v != any(OrderID(9)) || typ.Storage != idgen.StorageInt8 || typ.Name != "github.com/idgen/idgen/golden/prefixed.OrderID" {
		t.Errorf("Resolve = %+v, %v, %v", typ, v, err)
	}
}

// FuzzRoundTrip: for any value, every writer's output is read back by every reader as the
// same value, or every writer refuses it; any text the readers accept round-trips.
func FuzzRoundTrip(f *testing.F) {
	for _, s := range []string{"", "usr_0000000000007", "usr_7zzzzzzzzzzzz", "usr_8000000000000", "ord_0000000000007", "USR_0000000000007", "usr_000000000000I", "42", "-1"} {
		f.Add(int64(len(s))-3, s)
	}
	f.Fuzz(func(t *testing.T, x int64, s string) {
		golden.RoundTrip[UserID](t, UserID(x), ParseUserID)
		golden.RoundTrip[OrderID](t, OrderID(x), ParseOrderID)
		golden.ReadText[UserID](t, s, ParseUserID)
		golden.ReadText[OrderID](t, s, ParseOrderID)
	})
}
