package prefixed

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/idgen/idgen/runtime/codec"
	"github.com/idgen/idgen/runtime/snowflake"
)

func TestPrefixedText(t *testing.T) {
	g, err := snowflake.New(snowflake.Classic(), 9, snowflake.Options{})
	if err != nil {
		t.Fatal(err)
	}
	u, err := NewUserIDFrom(context.Background(), g)
	if err != nil {
		t.Fatal(err)
	}
	s := u.String()
	if !strings.HasPrefix(s, "usr_") || len(s) != 17 {
		t.Fatalf("String = %q", s)
	}
	if back, err := ParseUserID(s); err != nil || back != u {
		t.Fatalf("Parse = %v, %v", back, err)
	}
	// An OrderID's text is refused where a UserID belongs, and the reverse.
	o := OrderID(u)
	if _, err := ParseUserID(o.String()); !errors.Is(err, codec.ErrInvalid) || !strings.Contains(err.Error(), `want prefix "usr_"`) {
		t.Errorf("ParseUserID(order text) = %v", err)
	}
	if _, err := ParseOrderID(s); !errors.Is(err, codec.ErrInvalid) {
		t.Errorf("ParseOrderID(user text) = %v", err)
	}
	// Text sorts like the numbers.
	if a, b := UserID(999).String(), UserID(1000).String(); a >= b {
		t.Errorf("%s >= %s", a, b)
	}
	// JSON: the text, and no bare numbers.
	b, _ := json.Marshal(u)
	if string(b) != `"`+s+`"` {
		t.Errorf("JSON = %s", b)
	}
	var back UserID
	if err := json.Unmarshal([]byte("42"), &back); !errors.Is(err, codec.ErrInvalid) {
		t.Errorf("a bare number into a prefixed ID: %v", err)
	}
	// SQL gives BIGINT; text in decimal or prefixed form scans back.
	if v, _ := u.Value(); v != int64(u) {
		t.Errorf("Value = %v", v)
	}
	for _, src := range []any{int64(u), []byte(s), u.String(), []byte(strconv.FormatInt(int64(u), 10))} {
		var x UserID
		if err := x.Scan(src); err != nil || x != u {
			t.Errorf("Scan(%#v) = %v, %v", src, x, err)
		}
	}
}

func TestJSONSafeLayout(t *testing.T) {
	g, err := snowflake.New(snowflake.JSONSafe(), 1, snowflake.Options{})
	if err != nil {
		t.Fatal(err)
	}
	o, err := NewOrderIDFrom(context.Background(), g)
	if err != nil {
		t.Fatal(err)
	}
	if o >= 1<<53 {
		t.Fatalf("jsonsafe ID %d above 2^53", o)
	}
	if p, err := o.Parts(); err != nil || p.Worker != 1 {
		t.Fatalf("parts %+v, %v", p, err)
	}
	if _, err := NewUserIDFrom(context.Background(), g); err == nil {
		t.Fatal("a classic type took IDs from a jsonsafe generator")
	}
}

func FuzzUserID(f *testing.F) {
	for _, s := range []string{"usr_0000000000007", "usr_7zzzzzzzzzzzz", "usr_8000000000000", "ord_0000000000001", "7", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, err := ParseUserID(s)
		if err != nil {
			if !errors.Is(err, codec.ErrInvalid) {
				t.Fatal(err)
			}
			return
		}
		if id.String() != s {
			t.Fatalf("%q -> %v", s, id)
		}
		var j UserID
		if err := j.UnmarshalJSON([]byte(`"` + s + `"`)); err != nil || j != id {
			t.Fatalf("JSON %q: %v %v", s, j, err)
		}
	})
}
