package idgen_test

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/idgen/idgen"
	"github.com/idgen/idgen/runtime/codec"
	"github.com/idgen/idgen/runtime/typeid"
)

// Types shaped like generated ones, registered as their generated init functions do.
type (
	userID     int64
	ledgerID   int64
	invoiceTID [16]byte
	lineTID    [16]byte
	orderNo    string
	adminID    int64
)

func parseUser(s string) (userID, error) {
	v, err := codec.ParsePrefixed("userID", "usr", s)
	return userID(v), err
}

func parseLedger(s string) (ledgerID, error) {
	v, err := codec.ParseInt64("ledgerID", s)
	return ledgerID(v), err
}

func parseInvoice(s string) (invoiceTID, error) {
	u, err := typeid.Parse("invoice", s)
	if err != nil {
		return invoiceTID{}, codec.Errorf("invoiceTID", s, "%w", err)
	}
	return invoiceTID(u), nil
}

func parseLine(s string) (lineTID, error) {
	u, err := typeid.Parse("line_item", s)
	if err != nil {
		return lineTID{}, codec.Errorf("lineTID", s, "%w", err)
	}
	return lineTID(u), nil
}

// parseOrder takes "ORD" and 24 digits, as a business number's format would.
func parseOrder(s string) (orderNo, error) {
	rest, ok := strings.CutPrefix(s, "ORD")
	if !ok || len(rest) != 24 || strings.Trim(rest, "0123456789") != "" {
		return "", codec.Errorf("orderNo", s, "want ORD and 24 digits")
	}
	return orderNo(s), nil
}

// calls counts the Parse calls of each type: Resolve may call only the type it chose.
var calls = map[string]int{}

func parser[T any](name string, parse func(string) (T, error)) func(string) (any, error) {
	return func(s string) (any, error) {
		calls[name]++
		return parse(s)
	}
}

func registerAll() {
	idgen.ResetRegistry()
	clear(calls)
	idgen.Register(idgen.Type{Zero: userID(0), Kind: idgen.KindSnowflake, Prefix: "usr", Storage: idgen.StorageInt8, Parse: parser("user", parseUser)})
	idgen.Register(idgen.Type{Zero: ledgerID(0), Kind: idgen.KindSnowflake, Storage: idgen.StorageInt8, Parse: parser("ledger", parseLedger)})
	idgen.Register(idgen.Type{Zero: invoiceTID{}, Kind: idgen.KindTypeID, Prefix: "invoice", Storage: idgen.StorageUUID, Parse: parser("invoice", parseInvoice)})
	idgen.Register(idgen.Type{Zero: lineTID{}, Kind: idgen.KindTypeID, Prefix: "line_item", Storage: idgen.StorageText, Parse: parser("line", parseLine)})
	idgen.Register(idgen.Type{Zero: orderNo(""), Kind: idgen.KindNumber, Prefix: "ORD", Storage: idgen.StorageText, Parse: parser("order", parseOrder)})
}

func TestResolve(t *testing.T) {
	registerAll()
	t.Cleanup(idgen.ResetRegistry)
	inv := typeid.Format("invoice", [16]byte{1, 2, 3})
	line := typeid.Format("line_item", [16]byte{4})
	for _, tc := range []struct {
		in    string
		want  any
		parse string // the one Parse Resolve calls, "" for none
		err   error
	}{
		{"usr_0000000000007", userID(7), "user", nil},
		{inv, invoiceTID{1, 2, 3}, "invoice", nil},
		{line, lineTID{4}, "line", nil},
		{"ORD202604081234563309477888", orderNo("ORD202604081234563309477888"), "order", nil},
		// The prefix chooses the type; its Parse alone judges the rest.
		{"usr_000000000000I", nil, "user", codec.ErrInvalid},
		{"ORD2026", nil, "order", codec.ErrInvalid},
		// Text no prefix claims: decimal IDs (ledgerID is registered, without prefix),
		// unknown prefixes, shapes a prefix does not take.
		{"42", nil, "", idgen.ErrUnknownPrefix},
		{"adm_0000000000007", nil, "", idgen.ErrUnknownPrefix},
		{"usr_00000000000007", nil, "", idgen.ErrUnknownPrefix},
		{"usr_" + inv[len("invoice_"):], nil, "", idgen.ErrUnknownPrefix},
		{"ORDX", nil, "", idgen.ErrUnknownPrefix},
		{"", nil, "", idgen.ErrUnknownPrefix},
		{"0190a6f4-7c3e-7b5a-9c1d-2e3f4a5b6c7d", nil, "", idgen.ErrUnknownPrefix},
	} {
		t.Run(tc.in, func(t *testing.T) {
			clear(calls)
			typ, v, err := idgen.Resolve(tc.in)
			if !errors.Is(err, tc.err) || tc.err == nil && err != nil {
				t.Fatalf("Resolve(%q) = %v, %v, want %v", tc.in, typ.Name, err, tc.err)
			}
			if err == nil && (v != tc.want || typ.GoType != reflect.TypeOf(tc.want)) {
				t.Fatalf("Resolve(%q) = %s %#v, want %#v", tc.in, typ.Name, v, tc.want)
			}
			if err != nil && !strings.HasPrefix(err.Error(), "idgen: ") {
				t.Errorf("error %q lacks the package prefix", err)
			}
			want := map[string]int{}
			if tc.parse != "" {
				want[tc.parse] = 1
			}
			if fmt.Sprint(calls) != fmt.Sprint(want) {
				t.Errorf("Parse calls %v, want %v: Resolve tried parsers", calls, want)
			}
		})
	}
}

func TestTypes(t *testing.T) {
	registerAll()
	t.Cleanup(idgen.ResetRegistry)
	var got []string
	for _, typ := range idgen.Types() {
		got = append(got, fmt.Sprintf("%s %s %q %s %v", typ.Name, typ.Kind, typ.Prefix, typ.Storage, typ.Resolvable()))
		if typ.GoType != reflect.TypeOf(typ.Zero) {
			t.Errorf("%s: GoType %v, Zero %T", typ.Name, typ.GoType, typ.Zero)
		}
		if back, ok := idgen.TypeOf(typ.GoType); !ok || back.Name != typ.Name {
			t.Errorf("TypeOf(%v) = %v, %v", typ.GoType, back.Name, ok)
		}
	}
	want := []string{
		`github.com/idgen/idgen_test.invoiceTID typeid "invoice" uuid true`,
		`github.com/idgen/idgen_test.ledgerID snowflake "" int8 false`,
		`github.com/idgen/idgen_test.lineTID typeid "line_item" text true`,
		`github.com/idgen/idgen_test.orderNo number "ORD" text true`,
		`github.com/idgen/idgen_test.userID snowflake "usr" int8 true`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Types:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if _, ok := idgen.TypeOf(reflect.TypeOf(adminID(0))); ok {
		t.Error("TypeOf found a type never registered")
	}
	if err := idgen.CheckPrefixes(); err != nil {
		t.Errorf("CheckPrefixes = %v for distinct prefixes", err)
	}
}

// TestSharedPrefix: two types claiming one prefix are recorded at Register (it cannot fail
// in an init function), reported by CheckPrefixes, and Resolve refuses their text.
func TestSharedPrefix(t *testing.T) {
	registerAll()
	t.Cleanup(idgen.ResetRegistry)
	idgen.Register(idgen.Type{Zero: adminID(0), Kind: idgen.KindSnowflake, Prefix: "usr", Storage: idgen.StorageInt8, Parse: parser("admin", parseUser)})
	err := idgen.CheckPrefixes()
	want := `idgen: a prefix is claimed by more than one ID type: "usr" (github.com/idgen/idgen_test.adminID) and "usr" (github.com/idgen/idgen_test.userID)`
	if !errors.Is(err, idgen.ErrSharedPrefix) || err.Error() != want {
		t.Errorf("CheckPrefixes = %v\nwant %s", err, want)
	}
	clear(calls)
	if _, _, err := idgen.Resolve("usr_0000000000007"); !errors.Is(err, idgen.ErrSharedPrefix) || len(calls) != 0 {
		t.Errorf("Resolve of a shared prefix = %v (parse calls %v)", err, calls)
	}
	// A number prefix followed by digits that another number's prefix starts with: "ORD"
	// and "ORD2" both claim "ORD2026...".
	idgen.ResetRegistry()
	idgen.Register(idgen.Type{Zero: orderNo(""), Kind: idgen.KindNumber, Prefix: "ORD", Storage: idgen.StorageText, Parse: parser("order", parseOrder)})
	idgen.Register(idgen.Type{Zero: userID(0), Kind: idgen.KindNumber, Prefix: "ORD2", Storage: idgen.StorageText, Parse: parser("user", parseUser)})
	if err := idgen.CheckPrefixes(); !errors.Is(err, idgen.ErrSharedPrefix) {
		t.Errorf("CheckPrefixes(ORD, ORD2) = %v", err)
	}
	idgen.Register(idgen.Type{Zero: userID(0), Kind: idgen.KindNumber, Prefix: "ORD-", Storage: idgen.StorageText, Parse: parser("user", parseUser)})
	if err := idgen.CheckPrefixes(); err != nil {
		t.Errorf("CheckPrefixes(ORD, ORD-) = %v: a digit follows ORD, never '-'", err)
	}
	// Across kinds: a number's text is its prefix and a digit, a snowflake's its prefix,
	// '_' and base32 characters. Number "user_" and snowflake "user" both claim "user_0...",
	// number "ord" and snowflake "ord1" both claim "ord1_..."; number "user" and
	// snowflake "usera" claim nothing in common.
	for _, c := range []struct {
		number, other string
		clash         bool
	}{{"user_", "user", true}, {"ord", "ord1", true}, {"usr_x", "usr", true}, {"user", "user2", true}, {"user", "usera", false}, {"INV", "inv", false}} {
		idgen.ResetRegistry()
		idgen.Register(idgen.Type{Zero: orderNo(""), Kind: idgen.KindNumber, Prefix: c.number, Storage: idgen.StorageText, Parse: parser("order", parseOrder)})
		idgen.Register(idgen.Type{Zero: userID(0), Kind: idgen.KindSnowflake, Prefix: c.other, Storage: idgen.StorageInt8, Parse: parser("user", parseUser)})
		if err := idgen.CheckPrefixes(); errors.Is(err, idgen.ErrSharedPrefix) != c.clash {
			t.Errorf("CheckPrefixes(number %q, snowflake %q) = %v, want a clash: %v", c.number, c.other, err, c.clash)
		}
	}
}

func ExampleResolve() {
	idgen.ResetRegistry() // in a program, generated init functions fill the registry
	defer idgen.ResetRegistry()
	idgen.Register(idgen.Type{Zero: userID(0), Kind: idgen.KindSnowflake, Prefix: "usr", Storage: idgen.StorageInt8,
		Parse: func(s string) (any, error) { return parseUser(s) }})
	typ, v, err := idgen.Resolve("usr_0000000000042")
	fmt.Println(typ.Name, typ.Kind, v, err)
	_, _, err = idgen.Resolve("42")
	fmt.Println(err)
	// Output:
	// github.com/idgen/idgen_test.userID snowflake 130 <nil>
	// idgen: no registered ID type claims the text's prefix: "42"
}

func ExampleTypes() {
	idgen.ResetRegistry() // in a program, generated init functions fill the registry
	defer idgen.ResetRegistry()
	registerAll()
	// What a driver plugin does: each type and its slice, by what Value writes.
	for _, typ := range idgen.Types() {
		fmt.Println(typ.GoType, reflect.SliceOf(typ.GoType), typ.Storage)
	}
	// Output:
	// idgen_test.invoiceTID []idgen_test.invoiceTID uuid
	// idgen_test.ledgerID []idgen_test.ledgerID int8
	// idgen_test.lineTID []idgen_test.lineTID text
	// idgen_test.orderNo []idgen_test.orderNo text
	// idgen_test.userID []idgen_test.userID int8
}

func ExampleCheckPrefixes() {
	idgen.ResetRegistry()
	defer idgen.ResetRegistry()
	idgen.Register(idgen.Type{Zero: userID(0), Kind: idgen.KindSnowflake, Prefix: "usr", Storage: idgen.StorageInt8,
		Parse: func(s string) (any, error) { return parseUser(s) }})
	idgen.Register(idgen.Type{Zero: adminID(0), Kind: idgen.KindSnowflake, Prefix: "usr", Storage: idgen.StorageInt8,
		Parse: func(s string) (any, error) { return parseUser(s) }})
	fmt.Println(idgen.CheckPrefixes())
	// Output:
	// idgen: a prefix is claimed by more than one ID type: "usr" (github.com/idgen/idgen_test.adminID) and "usr" (github.com/idgen/idgen_test.userID)
}
