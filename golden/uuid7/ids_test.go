package uuid7

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/idgen/idgen/runtime/codec"
)

func TestUUID7(t *testing.T) {
	a, err := NewSessionID()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewSessionID()
	if a.IsZero() || a == b {
		t.Fatal("not new")
	}
	if uuid.UUID(a).Version() != 7 {
		t.Fatalf("version %d", uuid.UUID(a).Version())
	}
	if d := time.Since(a.Time()); d < 0 || d > time.Second {
		t.Errorf("Time() %v ago", d)
	}
	s := a.String()
	if s != uuid.UUID(a).String() {
		t.Fatalf("String %s, uuid says %s", s, uuid.UUID(a))
	}
	if back, err := ParseSessionID(strings.ToUpper(s)); err != nil || back != a {
		t.Fatalf("Parse = %v, %v", back, err)
	}
	for _, bad := range []string{"", "urn:uuid:" + s, "{" + s + "}", strings.ReplaceAll(s, "-", ""), s + "0"} {
		if _, err := ParseSessionID(bad); !errors.Is(err, codec.ErrInvalid) {
			t.Errorf("Parse(%q) = %v", bad, err)
		}
	}
	j, _ := json.Marshal(a)
	var back SessionID
	if err := json.Unmarshal(j, &back); err != nil || back != a || string(j) != `"`+s+`"` {
		t.Fatalf("JSON %s -> %v, %v", j, back, err)
	}
	// SQL: text (uuid, char(36)) or 16 raw bytes (binary(16)) in; the text out.
	for _, src := range []any{s, []byte(s), a[:]} {
		var x SessionID
		if err := x.Scan(src); err != nil || x != a {
			t.Errorf("Scan(%T) = %v, %v", src, x, err)
		}
	}
	var x SessionID
	if err := x.Scan(42); err == nil {
		t.Error("Scan(int) accepted")
	}
	if v, _ := a.Value(); v != s {
		t.Errorf("Value = %v", v)
	}
	var r RequestID
	if err := r.Generate(t.Context(), nil); err != nil || r.IsZero() {
		t.Fatalf("Generate = %v", err)
	}
}

func FuzzSessionID(f *testing.F) {
	f.Add("0190a6f4-7c3e-7b5a-9c1d-2e3f4a5b6c7d")
	f.Add("")
	f.Add("0190a6f4-7c3e-7b5a-9c1d-2e3f4a5b6c7")
	f.Fuzz(func(t *testing.T, s string) {
		id, err := ParseSessionID(s)
		if err != nil {
			if !errors.Is(err, codec.ErrInvalid) {
				t.Fatal(err)
			}
			return
		}
		if !strings.EqualFold(id.String(), s) {
			t.Fatalf("%q -> %s", s, id)
		}
		var x SessionID
		_ = x.UnmarshalJSON([]byte(s))
		_ = x.Scan(s)
	})
}
