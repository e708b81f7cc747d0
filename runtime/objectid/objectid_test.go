package objectid

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idgen/idgen/runtime/codec"
)

func TestNew(t *testing.T) {
	g, err := NewGenerator()
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 4, 8, 12, 34, 56, 0, time.UTC)
	g.now = func() time.Time { return at }
	g.counter.Store(0xfffffe)
	a, b, c := g.New(), g.New(), g.New()
	if !Time(a).Equal(at) || a[4] != g.process[0] {
		t.Fatalf("id %x", a)
	}
	// The counter wraps at 2^24 and stays in 3 bytes.
	if [3]byte(a[9:]) != [3]byte{0xff, 0xff, 0xff} || [3]byte(b[9:]) != [3]byte{0, 0, 0} || [3]byte(c[9:]) != [3]byte{0, 0, 1} {
		t.Fatalf("counter bytes %x %x %x", a[9:], b[9:], c[9:])
	}
	// Many goroutines: all distinct.
	seen := sync.Map{}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 10000 {
				if _, dup := seen.LoadOrStore(New(), true); dup {
					t.Error("duplicate ObjectId")
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestText(t *testing.T) {
	id := [12]byte{0x50, 0x7f, 0x1f, 0x77, 0xbc, 0xf8, 0x6c, 0xd7, 0x99, 0x43, 0x90, 0x11}
	s := string(Append(nil, id))
	if s != "507f1f77bcf86cd799439011" {
		t.Fatalf("Append = %s", s)
	}
	for _, in := range []string{s, strings.ToUpper(s)} {
		if got, err := Parse(in); err != nil || got != id {
			t.Errorf("Parse(%s) = %x, %v", in, got, err)
		}
	}
	for _, bad := range []string{"", s[:23], s + "0", "507f1f77bcf86cd79943901g"} {
		if _, err := Parse(bad); !errors.Is(err, codec.ErrInvalid) {
			t.Errorf("Parse(%q) = %v", bad, err)
		}
	}
	for _, src := range []any{s, []byte(s), id[:]} {
		if got, null, err := codec.ScanObjectID("OID", src); err != nil || null || got != id {
			t.Errorf("Scan(%T) = %x %v %v", src, got, null, err)
		}
	}
	if _, null, err := codec.ScanObjectID("OID", nil); !null || err != nil {
		t.Error("Scan(nil)")
	}
	if _, _, err := codec.ScanObjectID("OID", 42); !errors.Is(err, codec.ErrInvalid) {
		t.Errorf("Scan(int) = %v", err)
	}
	if got := Time(id); got.Unix() != 0x507f1f77 {
		t.Errorf("Time = %v", got)
	}
}

func FuzzParse(f *testing.F) {
	f.Add("507f1f77bcf86cd799439011")
	f.Add("")
	f.Add("507F1F77BCF86CD79943901Z")
	f.Fuzz(func(t *testing.T, s string) {
		id, err := Parse(s)
		if err != nil {
			if !errors.Is(err, codec.ErrInvalid) {
				t.Fatal(err)
			}
			return
		}
		if back := string(Append(nil, id)); !strings.EqualFold(back, s) {
			t.Fatalf("%q -> %q", s, back)
		}
	})
}
