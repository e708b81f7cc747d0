package typeids

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/idgen/idgen/runtime/codec"
	"github.com/idgen/idgen/runtime/typeid"
)

func TestTypeID(t *testing.T) {
	a, err := NewUserTID()
	if err != nil {
		t.Fatal(err)
	}
	s := a.String()
	if !strings.HasPrefix(s, "user_") || len(s) != 31 || uuid.UUID(a).Version() != 7 {
		t.Fatalf("String = %q", s)
	}
	if back, err := ParseUserTID(s); err != nil || back != a {
		t.Fatalf("Parse = %v, %v", back, err)
	}
	li := LineItemTID(a)
	if got := li.String(); !strings.HasPrefix(got, "line_item_") {
		t.Fatalf("LineItemTID = %q", got)
	}
	if _, err := ParseUserTID(li.String()); !errors.Is(err, codec.ErrInvalid) || !errors.Is(err, typeid.ErrInvalid) {
		t.Errorf("a line_item ID parsed as user: %v", err)
	}
	if bare := BareTID(a).String(); len(bare) != 26 || strings.Contains(bare, "_") {
		t.Errorf("BareTID = %q", bare)
	}
	j, _ := json.Marshal(a)
	var back UserTID
	if err := json.Unmarshal(j, &back); err != nil || back != a {
		t.Fatalf("JSON %s: %v", j, err)
	}
	// Stored as the UUID by default, as the TypeID text with sql=text; both scan back.
	if v, _ := a.Value(); v != uuid.UUID(a).String() {
		t.Errorf("UserTID Value = %v", v)
	}
	if v, _ := li.Value(); v != li.String() {
		t.Errorf("LineItemTID Value = %v", v)
	}
	for _, src := range []any{uuid.UUID(a).String(), s, []byte(s), a[:]} {
		var x UserTID
		if err := x.Scan(src); err != nil || x != a {
			t.Errorf("Scan(%#v) = %v, %v", src, x, err)
		}
	}
	if a.Time().IsZero() {
		t.Error("no time")
	}
}

func FuzzUserTID(f *testing.F) {
	f.Add("user_01h455vb4pex5vsknk084sn02q")
	f.Add("user_8zzzzzzzzzzzzzzzzzzzzzzzzz")
	f.Add("User_01h455vb4pex5vsknk084sn02q")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		id, err := ParseUserTID(s)
		if err != nil {
			if !errors.Is(err, codec.ErrInvalid) {
				t.Fatal(err)
			}
			return
		}
		if id.String() != s {
			t.Fatalf("%q -> %s", s, id)
		}
		var x UserTID
		_ = x.UnmarshalJSON([]byte(s))
		_ = x.Scan(s)
	})
}
