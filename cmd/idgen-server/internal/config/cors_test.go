package config

import (
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
		{name: "flag over env", args: []string{"-cors-origins", "*"}, env: "http://localhost:3000", want: []string{"*"}},
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
