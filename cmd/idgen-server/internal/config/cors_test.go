package config

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCORS: allowed origins come from the file, IDGEN_CORS_ORIGINS and -cors-origins,
// in that order of precedence; something that is not an origin is refused, naming where
// it came from; none means CORS off.
func TestCORS(t *testing.T) {
	file := filepath.Join(t.TempDir(), "idgen.yaml")
	if err := os.WriteFile(file, []byte(good+"cors: {allowed_origins: [\"https://app.example.com\"]}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	getenv := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	for _, tc := range []struct {
		name    string
		args    []string
		env     string
		want    []string
		wantErr string
	}{
		{name: "file", want: []string{"https://app.example.com"}},
		{name: "env", env: "http://localhost:3000, https://b.example", want: []string{"http://localhost:3000", "https://b.example"}},
		{name: "flag over env", args: []string{"-cors-origins", "https://c.example"}, env: "http://localhost:3000", want: []string{"https://c.example"}},
		{name: "any origin, open server", args: []string{"-cors-origins", "*"}, wantErr: "config: flag -cors-origins: cors.allowed_origins: \"*\" on a server without tokens lets a page on any site take IDs from it"},
		{name: "any origin, open server, insecure", args: []string{"-cors-origins", "*", "-insecure"}, want: []string{"*"}},
		{name: "path", args: []string{"-cors-origins", "https://a.example/app"}, wantErr: "config: flag -cors-origins: cors.allowed_origins: 0: \"https://a.example/app\" is not an origin"},
		{name: "no scheme", env: "a.example", wantErr: "config: IDGEN_CORS_ORIGINS: cors.allowed_origins: 0: \"a.example\" is not an origin"},
		{name: "trailing slash", env: "https://a.example/", wantErr: "is not an origin"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			delete(env, "IDGEN_CORS_ORIGINS")
			if tc.env != "" {
				env["IDGEN_CORS_ORIGINS"] = tc.env
			}
			c, _, err := Load(append([]string{"-config", file}, tc.args...), getenv, io.Discard)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(c.CORS.AllowedOrigins, tc.want) {
				t.Fatalf("origins %q, want %q", c.CORS.AllowedOrigins, tc.want)
			}
		})
	}
	c, err := Parse("default", Default())
	if err != nil {
		t.Fatal(err)
	}
	if len(c.CORS.AllowedOrigins) != 0 || c.CORS.Allows("http://127.0.0.1:7070") {
		t.Fatalf("the default allows origins: %q", c.CORS.AllowedOrigins)
	}
	c.CORS.AllowedOrigins = []string{"https://App.example.com"}
	for origin, want := range map[string]bool{"https://app.example.com": true, "https://app.example.com:443": false, "http://app.example.com": false, "": false} {
		if c.CORS.Allows(origin) != want {
			t.Errorf("Allows(%q) = %v", origin, !want)
		}
	}
}

// TestCORSAnyOriginNeedsTokens: "*" in a file on a server without tokens is refused with
// the file and line; with a token, or insecure: true written by the operator, it is taken.
func TestCORSAnyOriginNeedsTokens(t *testing.T) {
	_, err := Parse("idgen.yaml", []byte(good+"cors:\n  allowed_origins: [\"*\"]\n"))
	var ce *Error
	if !errors.As(err, &ce) || ce.Field != "cors.allowed_origins" || ce.Line != 14 {
		t.Fatalf("got %#v (%v), want an *Error at idgen.yaml:14 on cors.allowed_origins", ce, err)
	}
	for _, extra := range []string{
		"insecure: true\n",
		"tokens: [{name: web, token: 0123456789abcdef0123}]\n",
	} {
		c, err := Parse("idgen.yaml", []byte(good+extra+"cors: {allowed_origins: [\"*\"]}\n"))
		if err != nil {
			t.Fatalf("%q: %v", extra, err)
		}
		if !c.CORS.Allows("https://any.example") {
			t.Fatalf("%q: * does not allow any origin", extra)
		}
	}
}
