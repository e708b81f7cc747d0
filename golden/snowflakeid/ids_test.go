package snowflakeid

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/idgen/idgen"
	"github.com/idgen/idgen/runtime/codec"
	"github.com/idgen/idgen/runtime/snowflake"
)

func newGen(t testing.TB, layout snowflake.Layout) *snowflake.Generator {
	t.Helper()
	g, err := snowflake.New(layout, 3, snowflake.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestNew(t *testing.T) {
	idgen.SetDefault(nil)
	if _, err := NewUserID(); !errors.Is(err, idgen.ErrNoSource) {
		t.Fatalf("without a default source: %v", err)
	}
	idgen.SetDefault(newGen(t, snowflake.Classic()))
	t.Cleanup(func() { idgen.SetDefault(nil) })
	a, err := NewUserID()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewUserID()
	if a.IsZero() || b <= a {
		t.Fatalf("ids %v then %v", a, b)
	}
	p, err := a.Parts()
	if err != nil || p.Worker != 3 {
		t.Fatalf("parts %+v, %v", p, err)
	}
	// Within a second either way: the generator's clock is the wall time it read at start
	// plus the monotonic time since, so a step of the system clock since then (a VM's time
	// sync) may put the ID a little ahead of time.Now.
	if d := time.Since(a.Time()); d < -time.Second || d > time.Second {
		t.Errorf("Time() is %v ago", d)
	}
	if !UserID(0).Time().IsZero() {
		t.Error("the zero ID has a time")
	}
	// From an explicit source, and through the interface the plugins use.
	s, err := NewShardIDFrom(context.Background(), newGen(t, snowflake.Sonyflake()))
	if err != nil || s.IsZero() {
		t.Fatalf("NewShardIDFrom = %v, %v", s, err)
	}
	if _, err := NewShardIDFrom(context.Background(), nil); err == nil || !strings.Contains(err.Error(), "layout") {
		t.Fatalf("a sonyflake ID from a classic generator: %v", err) // the default is classic
	}
	var g idgen.Generated = new(AccountID)
	if !g.IsZero() {
		t.Fatal("new AccountID not zero")
	}
	if err := g.Generate(context.Background(), nil); err != nil || g.IsZero() {
		t.Fatalf("Generate: %v", err)
	}
}

func TestText(t *testing.T) {
	id := UserID(253888551064702976)
	if id.String() != "253888551064702976" {
		t.Fatalf("String = %q", id)
	}
	back, err := ParseUserID(id.String())
	if err != nil || back != id {
		t.Fatalf("Parse(String) = %v, %v", back, err)
	}
	for _, bad := range []string{"", "-1", "12a", "9223372036854775808", " 1", "usr_0000000000001"} {
		_, err := ParseUserID(bad)
		var pe *codec.ParseError
		if !errors.Is(err, codec.ErrInvalid) || !errors.As(err, &pe) || pe.Type != "UserID" {
			t.Errorf("ParseUserID(%q) = %v", bad, err)
		}
	}
	var u UserID
	if err := u.UnmarshalText([]byte("42")); err != nil || u != 42 {
		t.Errorf("UnmarshalText = %v, %v", u, err)
	}
}

type order struct {
	User    UserID    `json:"user"`
	Account AccountID `json:"account"`
	Shard   *ShardID  `json:"shard,omitempty"`
}

func TestJSON(t *testing.T) {
	in := order{User: 1<<62 + 1, Account: 1<<53 + 1}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"user":"4611686018427387905","account":9007199254740993}` {
		t.Fatalf("marshal = %s", b)
	}
	var out order
	if err := json.Unmarshal(b, &out); err != nil || out != in {
		t.Fatalf("round trip = %+v, %v", out, err)
	}
	// Numbers are accepted on input; strings too for json=number.
	if err := json.Unmarshal([]byte(`{"user":4611686018427387905,"account":"9007199254740993"}`), &out); err != nil || out != in {
		t.Fatalf("numbers in = %+v, %v", out, err)
	}
	for _, bad := range []string{
		`{"user":9223372036854775808}`,
		`{"user":"9223372036854775808"}`,
		`{"user":-1}`,
		`{"user":1.5}`,
		`{"user":1e3}`,
		`{"user":true}`,
		`{"user":"x"}`,
	} {
		err := json.Unmarshal([]byte(bad), &out)
		if !errors.Is(err, codec.ErrInvalid) {
			t.Errorf("%s: %v", bad, err)
		}
	}
	keep := order{User: 7}
	if err := json.Unmarshal([]byte(`{"user":null}`), &keep); err != nil || keep.User != 7 {
		t.Errorf("null: %+v, %v", keep, err)
	}
	if n := testing.AllocsPerRun(100, func() { _, _ = in.User.MarshalJSON() }); n > 1 {
		t.Errorf("MarshalJSON allocates %v times", n)
	}
}

func ptr[T any](v T) *T { return &v }

func TestSQL(t *testing.T) {
	var _ sql.Scanner = (*UserID)(nil)
	var _ driver.Valuer = UserID(0)
	for _, tc := range []struct {
		src  any
		want UserID
		ok   bool
	}{
		{int64(42), 42, true},
		{[]byte("42"), 42, true},
		{"42", 42, true},
		{nil, 0, true},
		{int64(-1), 0, false},
		{4.2, 0, false},
		{"forty-two", 0, false},
		{ptr(UserID(42)), 42, true},    // what ent's bulk creates pass back
		{(*UserID)(nil), 0, false},     // not NULL: a nil pointer is no value
		{ptr(AccountID(42)), 0, false}, // another type
	} {
		id := UserID(99)
		err := id.Scan(tc.src)
		if tc.ok != (err == nil) || (tc.ok && id != tc.want) {
			t.Errorf("Scan(%#v) = %v, %v", tc.src, id, err)
		}
		if !tc.ok && !strings.Contains(err.Error(), "UserID") {
			t.Errorf("Scan(%#v) error does not name the type: %v", tc.src, err)
		}
	}
	if v, err := UserID(42).Value(); err != nil || v != int64(42) {
		t.Errorf("Value = %#v, %v", v, err)
	}
}

func FuzzUserID(f *testing.F) {
	for _, s := range []string{"0", "42", "9223372036854775807", "9223372036854775808", "-1", "", "\"42\"", "null", "1e3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if id, err := ParseUserID(s); err == nil {
			if back, err := ParseUserID(id.String()); err != nil || back != id {
				t.Fatalf("%q -> %v -> %v, %v", s, id, back, err)
			}
		} else if !errors.Is(err, codec.ErrInvalid) {
			t.Fatal(err)
		}
		var a AccountID
		if err := a.UnmarshalJSON([]byte(s)); err == nil {
			b, _ := a.MarshalJSON()
			var c AccountID
			if err := c.UnmarshalJSON(b); err != nil || c != a {
				t.Fatalf("%q -> %v -> %s -> %v, %v", s, a, b, c, err)
			}
		}
		var u UserID
		_ = u.Scan(s)
		_ = u.Scan([]byte(s))
	})
}
