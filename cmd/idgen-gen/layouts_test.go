package main

import (
	"testing"

	"github.com/idgen/idgen/runtime/snowflake"
)

// TestLayoutNames: every layout an annotation names is the runtime/snowflake preset of
// that name, and the function generated code calls for it is the one returning it.
func TestLayoutNames(t *testing.T) {
	funcs := map[string]func() snowflake.Layout{
		"Classic": snowflake.Classic, "ClassicDC": snowflake.ClassicDC, "Sonyflake": snowflake.Sonyflake,
		"JSONSafe": snowflake.JSONSafe, "Leaf": snowflake.Leaf, "Twitter": snowflake.Twitter,
		"Bwmarrin": snowflake.Bwmarrin, "SonyflakeV1": snowflake.SonyflakeV1, "SonyflakeV2": snowflake.SonyflakeV2,
		"UIDGenerator": snowflake.UIDGenerator,
	}
	for name, mk := range layouts {
		p, err := snowflake.Preset(name)
		if err != nil || !p.Equal(mk()) {
			t.Errorf("layout=%s: preset %v, %v; annotation %v", name, p, err, mk())
		}
		f, ok := funcs[layoutFunc(name)]
		if !ok || !f().Equal(mk()) {
			t.Errorf("layout=%s: generated code calls snowflake.%s", name, layoutFunc(name))
		}
	}
}
