package objectids

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/idgen/idgen"
	"github.com/idgen/idgen/runtime/codec"
)

func TestDocumentID(t *testing.T) {
	a, err := NewDocumentID()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewDocumentID()
	if a.IsZero() || a == b || [5]byte(a[4:9]) != [5]byte(b[4:9]) {
		t.Fatalf("ids %s %s: want distinct, same process bytes", a, b)
	}
	if d := time.Since(a.Time()); d < 0 || d > 2*time.Second {
		t.Errorf("Time() %v ago", d)
	}
	s := a.String()
	if len(s) != 24 || strings.ToLower(s) != s {
		t.Fatalf("String = %q", s)
	}
	if back, err := ParseDocumentID(strings.ToUpper(s)); err != nil || back != a {
		t.Fatalf("Parse = %v, %v", back, err)
	}
	j, _ := json.Marshal(a)
	var back DocumentID
	if err := json.Unmarshal(j, &back); err != nil || back != a || string(j) != `"`+s+`"` {
		t.Fatalf("JSON %s: %v", j, err)
	}
	for _, src := range []any{s, []byte(s), a[:]} {
		var x DocumentID
		if err := x.Scan(src); err != nil || x != a {
			t.Errorf("Scan(%T) = %v, %v", src, x, err)
		}
	}
	if v, _ := a.Value(); v != s {
		t.Errorf("Value = %v", v)
	}
	var g idgen.Generated = new(DocumentID)
	if err := g.Generate(t.Context(), nil); err != nil || g.IsZero() {
		t.Fatalf("Generate: %v", err)
	}
	if !(DocumentID{}).Time().IsZero() {
		t.Error("zero ID has a time")
	}
	if _, err := ParseDocumentID("507f1f77bcf86cd79943901"); !errors.Is(err, codec.ErrInvalid) {
		t.Errorf("short: %v", err)
	}
}

func FuzzDocumentID(f *testing.F) {
	f.Add("507f1f77bcf86cd799439011")
	f.Add("")
	f.Add("507f1f77bcf86cd79943901z")
	f.Fuzz(func(t *testing.T, s string) {
		id, err := ParseDocumentID(s)
		if err != nil {
			if !errors.Is(err, codec.ErrInvalid) {
				t.Fatal(err)
			}
			return
		}
		if !strings.EqualFold(id.String(), s) {
			t.Fatalf("%q -> %s", s, id)
		}
		var x DocumentID
		_ = x.UnmarshalJSON([]byte(s))
		_ = x.Scan(s)
	})
}
