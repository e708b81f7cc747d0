package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/idgen/idgen/cmd/idgen-server/internal/config"
	"github.com/idgen/idgen/runtime/snowflake"
)

// TestSwitchingRecipes: every configuration in docs/switching.md is one idgen-server
// accepts, and the floors it shows are above the IDs the named layouts issue today.
func TestSwitchingRecipes(t *testing.T) {
	b, err := os.ReadFile("docs/switching.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(string(b), -1)
	if len(blocks) < 4 {
		t.Fatalf("%d yaml blocks in docs/switching.md, want one per recipe", len(blocks))
	}
	for i, m := range blocks {
		cfg, err := config.Parse("switching.md", []byte("listen: 127.0.0.1:7070\n"+m[1]))
		if err != nil {
			t.Errorf("recipe %d: %v\n%s", i, err, m[1])
			continue
		}
		if sf := cfg.Snowflake; sf != nil && sf.Floor != nil {
			l := sf.Parsed
			if err := snowflake.CheckFloor(l, snowflake.ID(sf.Floor.ID), time.Now()); err != nil {
				t.Errorf("recipe %d: %v", i, err)
			}
		}
	}
	if !strings.Contains(string(b), "TestSwitchingRecipes") {
		t.Error("docs/switching.md does not name the test that runs it")
	}
}
