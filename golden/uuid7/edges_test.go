package uuid7

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/idgen/idgen"
	"github.com/idgen/idgen/golden"
	"github.com/idgen/idgen/runtime/codec"
)

func TestEdges(t *testing.T) {
	if (SessionID{}).Prefix() != "" || (SessionID{}).Kind() != idgen.KindUUID7 {
		t.Errorf("Prefix/Kind: %q %q", SessionID{}.Prefix(), SessionID{}.Kind())
	}
	s, err := NewSessionID()
	if err != nil {
		t.Fatal(err)
	}
	golden.EmptyIsZero[SessionID](t, s, ParseSessionID)
	golden.EmptyIsZero[RequestID](t, RequestID(s), ParseRequestID)
	for _, v := range []SessionID{{}, s, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}} {
		if !golden.RoundTrip[SessionID](t, v, ParseSessionID) || !golden.RoundTrip[RequestID](t, RequestID(v), ParseRequestID) {
			t.Errorf("%v refused", v)
		}
	}
	var u SessionID
	for _, in := range []any{int64(1), json.Number("1"), []byte(s.String()), "{" + s.String() + "}"} {
		if err := u.UnmarshalGQL(in); !errors.Is(err, codec.ErrInvalid) {
			t.Errorf("UnmarshalGQL(%#v) = %v", in, err)
		}
	}
	// Registered, with native uuid storage, but not resolvable: a UUID's text has no prefix.
	typ, ok := idgen.TypeOf(golden.TypeOf[SessionID]())
	if !ok || typ.Storage != idgen.StorageUUID || typ.Resolvable() {
		t.Errorf("registered as %+v, %v", typ, ok)
	}
	if _, _, err := idgen.Resolve(s.String()); !errors.Is(err, idgen.ErrUnknownPrefix) {
		t.Errorf("Resolve(uuid) = %v", err)
	}
}

// FuzzRoundTrip: for any value, every writer's output is read back by every reader as the
// same value; any text the readers accept round-trips.
func FuzzRoundTrip(f *testing.F) {
	for _, s := range []string{"", "0190a6f4-7c3e-7b5a-9c1d-2e3f4a5b6c7d", "0190A6F4-7C3E-7B5A-9C1D-2E3F4A5B6C7D", "0190a6f47c3e7b5a9c1d2e3f4a5b6c7d", "{0190a6f4-7c3e-7b5a-9c1d-2e3f4a5b6c7d}"} {
		f.Add([]byte(s), s)
	}
	f.Fuzz(func(t *testing.T, raw []byte, s string) {
		var v SessionID
		copy(v[:], raw)
		if !golden.RoundTrip[SessionID](t, v, ParseSessionID) || !golden.RoundTrip[RequestID](t, RequestID(v), ParseRequestID) {
			t.Fatalf("%x refused", raw)
		}
		golden.ReadText[SessionID](t, s, ParseSessionID)
		golden.ReadText[RequestID](t, s, ParseRequestID)
	})
}
