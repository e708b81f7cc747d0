package server_test

import (
	"errors"
	"testing"
	"time"

	"github.com/idgen/idgen/cmd/idgen-server/internal/dataplane"
	"github.com/idgen/idgen/cmd/idgen-server/internal/testserver"
)

// FuzzDecode: whatever is pasted into the console's decoder (or sent to Decode without
// a tag), Decode answers a result with a kind, or a *DecodeError that names a reason and
// says what is wrong; it never panics.
func FuzzDecode(f *testing.F) {
	s := testserver.Start(f, "stores:\n"+testserver.SQLite(f, "local")+`
snowflake: {layout: classic, lease: {worker: 3}}
tags:
  - {name: id, kind: snowflake}
  - {name: usr, kind: snowflake, prefix: usr}
  - {name: order, kind: segment, store: local}
  - {name: ord, kind: number, prefix: ORD, check: true, zone: "+08:00"}
  - {name: user, kind: typeid, prefix: user}
  - {name: uuid, kind: uuid7}
`)
	for _, seed := range []string{
		"254740682042769408", "9223372036854775807", "9223372036854775808", "-1", "0", "",
		"usr_0e2k5jd1r8c00", "abc_0e2k5jd1r8c00", "usr_", "_x", "user_01h455vb4pex5vsknk084sn02q",
		"0190a6f4-7c3e-7b5a-9c1d-2e3f4a5b6c7d", "0190a6f4-7c3e-4b5a-9c1d-2e3f4a5b6c7d", "ORD2026120508215923446159364",
		"ORD2026120508215923446159365", "XYZ123", "ORD", "hello world", " 42 ",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		r, err := s.Decode(nil, in, time.UTC)
		var de *dataplane.DecodeError
		switch {
		case err == nil && r == nil:
			t.Fatalf("Decode(%q): no result and no error", in)
		case err == nil && r.Kind == 0:
			t.Fatalf("Decode(%q) = %v: no kind", in, r)
		case err != nil && (!errors.As(err, &de) || de.Reason == "" || de.Detail == ""):
			t.Fatalf("Decode(%q): %v, want a *DecodeError with a reason and a detail", in, err)
		}
	})
}
