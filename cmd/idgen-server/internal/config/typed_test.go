package config

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idgen/idgen/runtime/snowflake"
)

// TestStepPairRefused: a step outside [min_step, max_step] is refused by Parse with the
// file, the line and the field, as segment.New would refuse it later, before any store
// is opened.
func TestStepPairRefused(t *testing.T) {
	for _, c := range []struct{ name, extra, want string }{
		{"step below min_step", "    step: 5\n    min_step: 10\n", `config: x.yaml:13: tags[1].step: step 5, min_step 10, max_step 0: segment: invalid options`},
		{"step above max_step", "    step: 50\n    max_step: 10\n", `config: x.yaml:13: tags[1].step: step 50, min_step 0, max_step 10: segment: invalid options`},
		{"min_step above max_step", "    min_step: 50\n    max_step: 10\n", `config: x.yaml:13: tags[1].min_step: step 0, min_step 50, max_step 10: segment: invalid options`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("x.yaml", []byte(good+c.extra))
			var ce *Error
			if !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), c.want) {
				t.Fatalf("got  %v\nwant %s...", err, c.want)
			}
		})
	}
	for _, ok := range []string{"    step: 10\n    min_step: 10\n    max_step: 10\n", "    min_step: 2000\n", "    max_step: 10\n"} {
		if _, err := Parse("x.yaml", []byte(good+ok)); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
}

// TestTypedValues: Parse leaves the layout parsed and each number tag's zone loaded.
func TestTypedValues(t *testing.T) {
	c, err := Parse("x.yaml", []byte(strings.Replace(good, "layout: classic", "layout: sonyflake", 1)+
		"  - {name: ord, kind: number, prefix: ORD, zone: '+08:00'}\n  - {name: utc, kind: number, prefix: U}\n"))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := snowflake.ParseLayout("sonyflake")
	if c.Snowflake.Parsed != want {
		t.Errorf("Parsed = %v, want %v", c.Snowflake.Parsed, want)
	}
	if z := c.Tags[2].Location; z == nil || z.String() != "+08:00" {
		t.Errorf("tags[2].Location = %v, want +08:00", z)
	} else if _, off := time.Date(2026, 1, 1, 0, 0, 0, 0, z).Zone(); off != 8*3600 {
		t.Errorf("tags[2].Location offset %d, want 28800", off)
	}
	if c.Tags[3].Location != time.UTC {
		t.Errorf("tags[3].Location = %v, want UTC", c.Tags[3].Location)
	}
}

// TestTokenReadOnce: a token file is read when the configuration is loaded; the file
// removed afterwards, Secret still answers what was read.
func TestTokenReadOnce(t *testing.T) {
	dir := t.TempDir()
	file, tok := filepath.Join(dir, "idgen.yaml"), filepath.Join(dir, "token")
	if err := os.WriteFile(tok, []byte("0123456789abcdef0123\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(good+"tokens:\n  - {name: ops, token_file: "+tok+"}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	getenv := func(string) (string, bool) { return "", false }
	c, _, err := Load([]string{"-config", file}, getenv, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(tok); err != nil {
		t.Fatal(err)
	}
	if s, err := c.Tokens[0].Secret(); err != nil || s != "0123456789abcdef0123" {
		t.Fatalf("Secret after the file is gone = %q, %v", s, err)
	}
	// A token never loaded does not read its file.
	if _, err := (Token{TokenFile: tok}).Secret(); err == nil {
		t.Fatal("Secret of a token not loaded read something")
	}
}
