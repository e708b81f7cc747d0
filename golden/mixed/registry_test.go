package mixed

import (
	"fmt"
	"strings"
	"testing"

	"github.com/idgen/idgen"
)

// TestRegistry: every type of the package joined the registry at init, with its kind,
// prefix and storage; the prefixed ones resolve from their text alone.
func TestRegistry(t *testing.T) {
	var got []string
	for _, typ := range idgen.Types() {
		got = append(got, fmt.Sprintf("%s %s %q %s", strings.TrimPrefix(typ.Name, "github.com/idgen/idgen/golden/mixed."), typ.Kind, typ.Prefix, typ.Storage))
	}
	want := []string{
		`CustomerID snowflake "cus" int8`,
		`DocumentID objectid "" text`,
		`EventID snowflake "" int8`,
		`InvoiceTID typeid "invoice" uuid`,
		`LedgerID snowflake "" int8`,
		`PaymentNo number "PAY" text`,
		`TraceID uuid7 "" uuid`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Types:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if err := idgen.CheckPrefixes(); err != nil {
		t.Error(err)
	}
	inv, _ := NewInvoiceTID()
	pay, err := paymentNoFormat.Format(253975777475850240)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []interface {
		String() string
		Prefix() string
	}{CustomerID(42), inv, PaymentNo(pay)} {
		typ, got, err := idgen.Resolve(v.String())
		if err != nil || got != any(v) || typ.Prefix != v.Prefix() {
			t.Errorf("Resolve(%q) = %s, %#v, %v", v, typ.Name, got, err)
		}
	}
}
