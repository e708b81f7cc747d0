package console

import (
	"net/url"
	"strings"
	"testing"
)

// FuzzSafeNext: whatever `next` holds, the redirect it becomes takes a browser (which
// drops tabs and newlines and reads a backslash as a slash) to a path of this site.
func FuzzSafeNext(f *testing.F) {
	for _, s := range []string{"/tags", "//evil.example", "/\t/evil.example", "/\\evil.example", "https://evil.example", "/decode?id=1#x", "/%2F%2Fevil"} {
		f.Add(s)
	}
	base, _ := url.Parse("http://console.example/")
	f.Fuzz(func(t *testing.T, next string) {
		got := safeNext(next)
		loc := strings.NewReplacer("\t", "", "\n", "", "\r", "", "\\", "/").Replace(got)
		u, err := base.Parse(loc)
		if err != nil || u.Host != "console.example" || !strings.HasPrefix(got, "/") || strings.HasPrefix(got, "//") {
			t.Fatalf("safeNext(%q) = %q: a browser goes to %v (%v)", next, got, u, err)
		}
	})
}
