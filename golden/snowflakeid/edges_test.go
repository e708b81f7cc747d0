package snowflakeid

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/idgen/idgen"
	"github.com/idgen/idgen/golden"
	"github.com/idgen/idgen/runtime/codec"
)

func TestEdges(t *testing.T) {
	if UserID(0).Prefix() != "" || UserID(0).Kind() != idgen.KindSnowflake {
		t.Errorf("Prefix/Kind: %q %q", UserID(0).Prefix(), UserID(0).Kind())
	}
	golden.EmptyIsZero[UserID](t, 42, ParseUserID)
	golden.EmptyIsZero[AccountID](t, 42, ParseAccountID)
	golden.EmptyIsZero[ShardID](t, 42, ParseShardID)
	for _, v := range []int64{0, 1, 253975777475850240, 1<<63 - 1} {
		if !golden.RoundTrip[UserID](t, UserID(v), ParseUserID) || !golden.RoundTrip[AccountID](t, AccountID(v), ParseAccountID) {
			t.Errorf("%d refused", v)
		}
	}
	for _, v := range []int64{-1, -1 << 63} {
		if golden.RoundTrip[UserID](t, UserID(v), ParseUserID) || golden.RoundTrip[AccountID](t, AccountID(v), ParseAccountID) {
			t.Errorf("%d written", v)
		}
	}
	if s := AccountID(-7).String(); s != "AccountID(-7)" {
		t.Errorf("String(-7) = %q", s)
	}
	if v, err := UserID(-1).Value(); v != nil || !errors.Is(err, codec.ErrInvalid) || err.Error() != "codec: write UserID -1: negative" {
		t.Errorf("Value(-1) = %v, %v", v, err)
	}
	// json=number writes a number for gqlgen too; both types read what gqlgen passes:
	// strings, json.Number from variables, int64 and int from literals.
	var b []byte
	w := writer(func(p []byte) { b = append(b, p...) })
	AccountID(42).MarshalGQL(w)
	UserID(42).MarshalGQL(w)
	if string(b) != `42"42"` {
		t.Errorf("MarshalGQL = %s", b)
	}
	for _, in := range []any{"42", json.Number("42"), int64(42), 42} {
		var u UserID
		var a AccountID
		if err := u.UnmarshalGQL(in); err != nil || u != 42 {
			t.Errorf("UserID.UnmarshalGQL(%#v) = %d, %v", in, u, err)
		}
		if err := a.UnmarshalGQL(in); err != nil || a != 42 {
			t.Errorf("AccountID.UnmarshalGQL(%#v) = %d, %v", in, a, err)
		}
	}
	for _, in := range []any{"-1", json.Number("-1"), int64(-1), -1, json.Number("042"), json.Number("4e1"), 42.0, true, "usr_0000000000007"} {
		var u UserID
		if err := u.UnmarshalGQL(in); !errors.Is(err, codec.ErrInvalid) {
			t.Errorf("UnmarshalGQL(%#v) = %d, %v", in, u, err)
		}
	}
	// Decimal types are registered, but their text says nothing of their type.
	for _, typ := range idgen.Types() {
		if typ.Resolvable() {
			t.Errorf("%s resolvable without a prefix", typ.Name)
		}
	}
	if len(idgen.Types()) != 3 {
		t.Errorf("%d types registered, want 3", len(idgen.Types()))
	}
	if _, _, err := idgen.Resolve("42"); !errors.Is(err, idgen.ErrUnknownPrefix) {
		t.Errorf("Resolve(42) = %v", err)
	}
}

type writer func([]byte)

func (w writer) Write(p []byte) (int, error) { w(p); return len(p), nil }

// FuzzRoundTrip: for any value, every writer's output is read back by every reader as the
// same value, or every writer refuses it; any text the readers accept round-trips.
func FuzzRoundTrip(f *testing.F) {
	for _, s := range []string{"", "0", "42", "042", "-1", "+1", "9223372036854775807", "9223372036854775808", " 1", "usr_0000000000007"} {
		f.Add(int64(len(s))-3, s)
	}
	f.Fuzz(func(t *testing.T, x int64, s string) {
		golden.RoundTrip[UserID](t, UserID(x), ParseUserID)
		golden.RoundTrip[AccountID](t, AccountID(x), ParseAccountID)
		golden.RoundTrip[ShardID](t, ShardID(x), ParseShardID)
		golden.ReadText[UserID](t, s, ParseUserID)
		golden.ReadText[AccountID](t, s, ParseAccountID)
	})
}
